package remote

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/state"
)

// A spawn on a host travels as one Bundle on the standard input of the host's `swarm host
// __spawn`: one round trip clones or fetches the project there, writes the files sent with the
// worker, and starts it.

// Bundle is a spawn on a host.
type Bundle struct {
	Worker string `json:"worker"`
	// ID names this spawn for its receipt on the host (receipt.go); "" from a swarm that
	// asks for none.
	ID string `json:"id,omitempty"`
	// Repo is the project's repository that the host's clone comes from, "" when the worker
	// runs in a directory of the host named by --cwd; Subdir is where in the clone it runs.
	Repo   string `json:"repo,omitempty"`
	Subdir string `json:"subdir,omitempty"`
	// Files are sent with the worker; their names replace SentMark in Args.
	Files []BundleFile `json:"files,omitempty"`
	// Args is the command line after "swarm" (spawn ..., agent ...).
	Args []string `json:"args"`
}

// BundleFile is one file sent with a worker.
type BundleFile struct {
	Name string `json:"name"`
	Mode uint32 `json:"mode"`
	Data []byte `json:"data"`
}

// SentMark stands in a bundle's arguments for the directory its files are written to on the
// host.
const SentMark = "{swarm-sent}"

// SentDir is where the files sent with the worker are kept on the host whose state directory
// is root.
func SentDir(root, worker string) string { return filepath.Join(root, "sent", worker) }

// WriteFiles writes the bundle's files into the worker's directory of sent files, replacing
// what an earlier spawn of that name sent, and returns that directory.
func (b Bundle) WriteFiles(root string) (string, error) {
	dir := SentDir(root, b.Worker)
	if len(b.Files) == 0 {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	for _, f := range b.Files {
		if f.Name == "" || strings.ContainsAny(f.Name, "/\\") || f.Name == "." || f.Name == ".." {
			return "", fmt.Errorf("invalid name of a sent file: '%s'", f.Name)
		}
		if err := state.WriteFileAtomic(filepath.Join(dir, f.Name), f.Data, os.FileMode(f.Mode&0o777)); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// ArgsIn is the bundle's command line with the directory of sent files put in.
func (b Bundle) ArgsIn(sentDir string) []string {
	out := make([]string, len(b.Args))
	for i, a := range b.Args {
		out[i] = strings.ReplaceAll(a, SentMark, sentDir)
	}
	return out
}

// WorkspaceOf is where the host whose state directory is root keeps its clone of repo.
func WorkspaceOf(root, repo string) string {
	base := strings.TrimSuffix(filepath.Base(strings.TrimRight(repo, "/")), ".git")
	if i := strings.LastIndexAny(base, ":"); i >= 0 {
		base = base[i+1:]
	}
	if base == "" || base == "." {
		base = "project"
	}
	sum := sha256.Sum256([]byte(repo))
	return filepath.Join(root, "workspaces", base+"-"+hex.EncodeToString(sum[:4]))
}

// EnsureWorkspace makes the host's clone of repo on first use; later it fetches, and moves a
// clean checkout on to what its branch became. fetch false takes the clone as it is (it must
// exist).
func EnsureWorkspace(root, repo string, fetch bool) (string, error) {
	dir := WorkspaceOf(root, repo)
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return "", err
	}
	lock, err := state.AcquireLock(dir + ".lock")
	if err != nil {
		return "", err
	}
	defer lock.Unlock()
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		if !fetch {
			return "", fmt.Errorf("no clone of %s on this host yet (a worker spawned there from the project makes it)", repo)
		}
		if err := git.Clone(repo, dir); err != nil {
			return "", fmt.Errorf("cannot clone %s: %w", repo, err)
		}
		return dir, nil
	}
	if fetch {
		if err := git.Fetch(dir, "origin"); err != nil {
			return "", fmt.Errorf("cannot fetch %s into %s: %w", repo, dir, err)
		}
		git.FastForwardUpstream(dir)
	}
	return dir, nil
}

// InWorkspace is the directory sub of the clone at dir, which must exist there.
func InWorkspace(dir, sub string) (string, error) {
	if sub == "" || sub == "." {
		return dir, nil
	}
	if filepath.IsAbs(sub) || strings.HasPrefix(filepath.Clean(sub), "..") {
		return "", fmt.Errorf("invalid directory in the project: '%s'", sub)
	}
	p := filepath.Join(dir, sub)
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s is not in the host's clone (%s): commit and push it first", sub, dir)
	}
	return p, nil
}
