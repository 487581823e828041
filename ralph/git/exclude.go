package git

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ExcludeFile is the repository's own list of untracked paths to ignore (info/exclude). It is
// in the common directory, so every worktree of the repository shares it, and it is never
// committed: what it hides is hidden for this clone only.
func ExcludeFile(dir string) (string, error) {
	return Run(dir, "rev-parse", "--path-format=absolute", "--git-path", "info/exclude")
}

// Exclude adds the patterns missing from the repository's info/exclude, under the comment
// header, and leaves every line already there as it was: run again, it changes nothing.
func Exclude(dir, header string, patterns []string) error {
	path, err := ExcludeFile(dir)
	if err != nil {
		return err
	}
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	lines := strings.Split(string(old), "\n")
	var missing []string
	for _, p := range patterns {
		if !slices.Contains(lines, p) && !slices.Contains(missing, p) {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	text := string(old)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if !slices.Contains(lines, header) {
		text += header + "\n"
	}
	text += strings.Join(missing, "\n") + "\n"
	return writeReplacing(path, []byte(text))
}

// writeReplacing replaces the file at path by data in one rename, so a reader (git, another
// agent starting) sees the old list or the new one, never half of it.
func writeReplacing(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".exclude-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}
