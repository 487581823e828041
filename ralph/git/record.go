package git

import (
	"fmt"
	"os"
	"strings"
)

// Commits that are records rather than work (a shared inbox's claims: a commit with an empty
// tree whose message says who holds a spec), and a commit's change replayed on top of another
// branch's head without touching the caller's checkout.

// RecordCommit makes a commit with an empty tree and message, on top of parent ("": none),
// and returns it. It is written to the repository's objects only: no branch moves.
func RecordCommit(repo, message, parent string) (string, error) {
	tree, err := Run(repo, "hash-object", "-w", "-t", "tree", os.DevNull)
	if err != nil {
		return "", err
	}
	args := []string{"commit-tree", tree, "-m", message}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	return runEnv(repo, identity(repo), args...)
}

// ReplayOnto applies the change commit made (against its first parent) on top of base, as a
// new commit with the same message and author, and returns it. It works in a throwaway
// worktree, so the caller's checkout and its changes are never touched. A change that does not
// apply cleanly wraps ErrConflict, with the conflicting files named.
func ReplayOnto(repo, commit, base string) (string, error) {
	var replayed string
	err := WithCheckout(repo, base, func(path string) error {
		_, err := runEnv(path, identity(path), "cherry-pick", "--allow-empty", "--keep-redundant-commits", commit)
		if err != nil {
			conflicts, _ := Run(path, "diff", "--name-only", "--diff-filter=U")
			_, _ = Run(path, "cherry-pick", "--abort")
			if conflicts != "" {
				return fmt.Errorf("%w in %s", ErrConflict, strings.ReplaceAll(conflicts, "\n", ", "))
			}
			return err
		}
		replayed = Head(path)
		return nil
	})
	return replayed, err
}
