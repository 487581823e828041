package git

import (
	"errors"
	"os"
	"strings"
)

// The primitives of landing a branch: a scratch worktree of swarm's own where a branch is
// merged onto the target and tested, and moving the target only the way that cannot lose a
// commit someone else put there meanwhile (a compare-and-swap on the ref, or a fast-forward of
// a checkout).

// ResolveCommit is the commit rev names (a branch, a ref, a commit).
func ResolveCommit(repo, rev string) (string, error) {
	return Run(repo, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
}

// CurrentBranch is the branch checked out in dir, or an error when HEAD is detached.
func CurrentBranch(dir string) (string, error) {
	return Run(dir, "symbolic-ref", "--quiet", "--short", "HEAD")
}

// IsAncestor reports whether commit a is reachable from commit b.
func IsAncestor(repo, a, b string) bool {
	_, err := Run(repo, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

// ResetScratch makes path a clean detached checkout of commit in repo: it adds the worktree
// when it is not there (or not a worktree any more) and otherwise throws away whatever a merge
// or a test run left in it, so a run killed half way never leaves its mess to the next.
func ResetScratch(repo, path, commit string) error {
	if _, err := os.Stat(path); err == nil {
		_, _ = Run(path, "merge", "--abort")
		if _, err := Run(path, "checkout", "--quiet", "--force", "--detach", commit); err == nil {
			_, err = Run(path, "clean", "-fdxq")
			return err
		}
		_ = os.RemoveAll(path)
	}
	PruneWorktrees(repo)
	_, err := Run(repo, "worktree", "add", "--quiet", "--detach", path, commit)
	return err
}

// ErrConflict is the cause of a merge that stopped on conflicts.
var ErrConflict = errors.New("merge conflict")

// MergeNoFF merges branch into the checkout at dir as a merge commit with message and returns
// the new HEAD. On conflicts the merge is aborted, the checkout left as it was, and the error
// wraps ErrConflict with the conflicting files named in conflicts.
func MergeNoFF(dir, branch, message string) (head string, conflicts []string, err error) {
	if _, err := runEnv(dir, identity(dir), "merge", "--no-ff", "--no-edit", "-m", message, branch); err != nil {
		out, _ := Run(dir, "diff", "--name-only", "--diff-filter=U")
		_, _ = Run(dir, "merge", "--abort")
		if out == "" {
			return "", nil, err
		}
		return "", strings.Split(out, "\n"), ErrConflict
	}
	return Head(dir), nil, nil
}

// CompareAndSwapRef moves ref from old to new; git refuses when ref is no longer at old.
func CompareAndSwapRef(repo, ref, new, old string) error {
	_, err := Run(repo, "update-ref", "-m", "swarm land", ref, new, old)
	return err
}

// CheckoutsOf lists the worktrees of repo that have branch checked out.
func CheckoutsOf(repo, branch string) ([]string, error) {
	out, err := Run(repo, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	var paths []string
	path := ""
	for _, line := range strings.Split(out, "\n") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok {
			path = p
		}
		if line == "branch refs/heads/"+branch {
			paths = append(paths, path)
		}
	}
	return paths, nil
}

// FastForward moves the branch checked out at dir, and its files, to commit; git refuses
// anything but a fast-forward.
func FastForward(dir, commit string) error {
	_, err := Run(dir, "merge", "--quiet", "--ff-only", commit)
	return err
}

// BranchStart is the commit branch was created at, as its reflog remembers it (the oldest
// entry); ok is false when the branch has no reflog to tell (reflogs turned off, expired).
// A branch still at its start has no commit of its own.
func BranchStart(repo, branch string) (commit string, ok bool) {
	out, err := Run(repo, "reflog", "show", "--format=%H", "refs/heads/"+branch, "--")
	if err != nil || out == "" {
		return "", false
	}
	entries := strings.Split(out, "\n")
	return entries[len(entries)-1], true
}
