package git

import (
	"context"
	"errors"
	"strings"
)

// ErrPushRejected is the cause of a push the remote refused because its branch moved on to
// commits the pushed one does not contain.
var ErrPushRejected = errors.New("push rejected: the remote branch moved")

// Upstream is where branch is pushed: its configured upstream (remote and ref), else the
// branch of the same name on origin.
func Upstream(repo, branch string) (remote, ref string) {
	remote, _ = Run(repo, "config", "--get", "branch."+branch+".remote")
	ref, _ = Run(repo, "config", "--get", "branch."+branch+".merge")
	if remote == "" || remote == "." {
		remote = "origin"
	}
	if ref == "" {
		ref = "refs/heads/" + branch
	}
	return remote, ref
}

// PushCommit pushes commit to ref on remote without forcing; a refusal because the remote's
// ref is not an ancestor of commit wraps ErrPushRejected. It runs bounded by ctx, in the
// terminal's process group (it may ask for credentials there).
func PushCommit(ctx context.Context, repo, remote, commit, ref string) error {
	_, err := bounded{ctx: ctx}.run(repo, "push", "--quiet", remote, commit+":"+ref)
	if err != nil && (strings.Contains(err.Error(), "[rejected]") || strings.Contains(err.Error(), "non-fast-forward")) {
		return errors.Join(ErrPushRejected, err)
	}
	return err
}

// FetchRef fetches ref from remote and returns the commit it is at there. It runs bounded by
// ctx, in the terminal's process group (it may ask for credentials there).
func FetchRef(ctx context.Context, repo, remote, ref string) (string, error) {
	if _, err := (bounded{ctx: ctx}).run(repo, "fetch", "--quiet", remote, ref); err != nil {
		return "", err
	}
	return ResolveCommit(repo, "FETCH_HEAD")
}

// MoveCheckout moves the branch checked out at dir, and its files, to commit, which need not
// descend from it; git refuses when that would overwrite uncommitted changes.
func MoveCheckout(ctx context.Context, dir, commit string) error {
	_, err := bounded{ctx: ctx, ownGroup: true}.run(dir, "reset", "--quiet", "--keep", commit)
	return err
}
