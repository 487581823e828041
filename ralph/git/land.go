package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
)

// The primitives of landing a branch: a scratch worktree of swarm's own where a branch is
// merged onto the target and tested, and moving the target only the way that cannot lose a
// commit someone else put there meanwhile (a compare-and-swap on the ref, or a fast-forward of
// a checkout). Those that run the repository's hooks run bounded by ctx (see bounded.go).

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
func ResetScratch(ctx context.Context, repo, path, commit string) error {
	b := bounded{ctx: ctx, ownGroup: true}
	if _, err := os.Stat(path); err == nil {
		_, _ = Run(path, "merge", "--abort")
		if _, err := b.run(path, "checkout", "--quiet", "--force", "--detach", commit); err == nil {
			_, err = Run(path, "clean", "-fdxq")
			return err
		} else if ctx.Err() != nil {
			return err
		}
		_ = os.RemoveAll(path)
	}
	PruneWorktrees(repo)
	_, err := b.run(repo, "worktree", "add", "--quiet", "--detach", path, commit)
	return err
}

// ErrConflict is the cause of a merge that stopped on conflicts.
var ErrConflict = errors.New("merge conflict")

// ErrMergeRefused is the cause of a merge that failed without conflicts: a hook of the
// repository (pre-merge-commit, commit-msg) refused it, or git did.
var ErrMergeRefused = errors.New("the merge was refused")

// MergeNoFF merges branch into the checkout at dir as a merge commit with message and returns
// the new HEAD. On conflicts the merge is aborted, the checkout left as it was, and the error
// wraps ErrConflict with the conflicting files named in conflicts; refused otherwise, it wraps
// ErrMergeRefused with the last line the refusal printed; ended by ctx, it says so.
func MergeNoFF(ctx context.Context, dir, branch, message string) (head string, conflicts []string, err error) {
	b := bounded{ctx: ctx, ownGroup: true, env: identity(dir)}
	if _, err := b.run(dir, "merge", "--no-ff", "--no-edit", "-m", message, branch); err != nil {
		out, _ := Run(dir, "diff", "--name-only", "--diff-filter=U")
		_, _ = Run(dir, "merge", "--abort")
		switch {
		case ctx.Err() != nil:
			return "", nil, err
		case out == "":
			return "", nil, fmt.Errorf("%w: %s", ErrMergeRefused, refusal(strings.TrimPrefix(err.Error(), "git merge: ")))
		}
		return "", strings.Split(out, "\n"), ErrConflict
	}
	return Head(dir), nil, nil
}

// refusal is the line that says why a merge was refused: the last one printed, git's own
// advice on finishing the merge by hand left out (land never does).
func refusal(msg string) string {
	lines := strings.Split(msg, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && !strings.HasPrefix(l, "Not committing merge") {
			return l
		}
	}
	return strings.TrimSpace(msg)
}

// CompareAndSwapRef moves ref from old to new; git refuses when ref is no longer at old.
func CompareAndSwapRef(ctx context.Context, repo, ref, new, old string) error {
	_, err := bounded{ctx: ctx, ownGroup: true}.run(repo, "update-ref", "-m", "swarm land", ref, new, old)
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
func FastForward(ctx context.Context, dir, commit string) error {
	_, err := bounded{ctx: ctx, ownGroup: true}.run(dir, "merge", "--quiet", "--ff-only", commit)
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
