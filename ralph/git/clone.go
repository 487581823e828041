package git

import (
	"os"
	"path/filepath"
)

// A host's clone of a project (its workspace) is made once and fetched before each worker
// is started there; its checkout moves only when nothing in it would be lost.

// Clone clones url into dir, whose parent must exist; dir appears whole or not at all.
func Clone(url, dir string) error {
	tmp := dir + ".cloning"
	_ = os.RemoveAll(tmp)
	if _, err := runEnv(filepath.Dir(dir), noPrompt, "clone", "--quiet", url, tmp); err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	return os.Rename(tmp, dir)
}

// Fetch fetches every branch of remote into dir, dropping those gone there.
func Fetch(dir, remote string) error {
	_, err := runEnv(dir, noPrompt, "fetch", "--quiet", "--prune", remote)
	return err
}

// RemoteURL is the URL remote has in the repository at dir.
func RemoteURL(dir, remote string) (string, error) { return Run(dir, "remote", "get-url", remote) }

// TopLevel is the root of the work tree dir is in.
func TopLevel(dir string) (string, error) { return Run(dir, "rev-parse", "--show-toplevel") }

// FastForwardUpstream moves the checked-out branch of a clean checkout at dir to its
// upstream when that only adds commits; it says whether it moved.
func FastForwardUpstream(dir string) bool {
	if dirty, err := Dirty(dir); err != nil || dirty {
		return false
	}
	before := Head(dir)
	if _, err := Run(dir, "merge", "--quiet", "--ff-only", "@{upstream}"); err != nil {
		return false
	}
	return Head(dir) != before
}
