package git

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExcludeAddsWhatIsMissingOnce(t *testing.T) {
	dir := newRepo(t)
	commit(t, dir, "a.txt", "one")
	path := filepath.Join(dir, ".git", "info", "exclude")
	if err := os.WriteFile(path, []byte("# mine\n*.tmp"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := Exclude(dir, "# swarm", []string{"/ralph/plan.jsonl", "*.tmp", "/build/ralph-logs/"}); err != nil {
			t.Fatal(err)
		}
	}
	want := "# mine\n*.tmp\n# swarm\n/ralph/plan.jsonl\n/build/ralph-logs/\n"
	if got := readFile(t, path); got != want {
		t.Errorf("exclude file:\n%s\nwant:\n%s", got, want)
	}
	writeFiles(t, dir, map[string]string{"ralph/plan.jsonl": "{}", "ralph/specs/x.md": "x"})
	if out := mustRun(t, dir, "status", "--porcelain", "--untracked-files=all"); out != "?? ralph/specs/x.md" {
		t.Errorf("status = %q, want only the spec", out)
	}
}

func TestExcludeFromALinkedWorktreeIsTheRepositorys(t *testing.T) {
	dir := newRepo(t)
	commit(t, dir, "a.txt", "one")
	linked := filepath.Join(t.TempDir(), "linked")
	mustRun(t, dir, "worktree", "add", "-q", "-b", "side", linked)
	if err := Exclude(linked, "# swarm", []string{"/ralph/plan.jsonl"}); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, filepath.Join(dir, ".git", "info", "exclude"))
	if !strings.HasSuffix(got, "# swarm\n/ralph/plan.jsonl\n") {
		t.Errorf("the main repository's exclude file is %q", got)
	}
	writeFiles(t, linked, map[string]string{"ralph/plan.jsonl": "{}"})
	if out := mustRun(t, linked, "status", "--porcelain"); out != "" {
		t.Errorf("status in the linked worktree = %q, want nothing", out)
	}
}
