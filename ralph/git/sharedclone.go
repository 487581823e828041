package git

import (
	"fmt"
	"os"
	"path/filepath"
)

// A worktree can be a clone of its repository instead of a git worktree, for an agent that
// must commit on its branch without reach into the repository: a git worktree shares the
// repository's refs, so whoever may commit there may as well move or delete any branch. A
// clone made with --shared borrows the repository's objects through objects/info/alternates,
// read and never written (what the agent commits stays in the clone's own objects), and has
// refs of its own; its branch is brought back into the repository, when the user needs it
// there, by FetchBack, run outside whatever confines the agent.

// identityKeys are the settings of the repository's own configuration a clone takes along:
// commits made in it are the user's as they would be in a git worktree.
var identityKeys = []string{"user.name", "user.email"}

// CloneWorktree makes path (which must not exist; its parent must) a clone of repo that
// borrows repo's objects, with branch checked out at commit, repo's own user.name and
// user.email set in it when repo sets them, and origin the repository itself: the agent sees
// the repository's branches as origin/* after `git fetch origin`. The clone holds no local
// branch but its own. On failure nothing of it is left.
func CloneWorktree(repo, path, branch, commit string) error {
	if _, err := runEnv(filepath.Dir(path), noPrompt, "clone", "--quiet", "--shared", "--no-checkout", repo, path); err != nil {
		return err
	}
	if err := setUpClone(repo, path, branch, commit); err != nil {
		_ = os.RemoveAll(path)
		return err
	}
	return nil
}

// setUpClone gives a fresh clone the repository's identity and checks its branch out. Its
// commondir names the clone's own git directory: a file git reads in every git directory,
// made here so that a sandbox can hold it read-only, and an agent cannot point the git that
// swarm runs outside the sandbox at a configuration of its own making.
func setUpClone(repo, path, branch, commit string) error {
	if err := os.WriteFile(filepath.Join(path, ".git", "commondir"), []byte(".\n"), 0o644); err != nil {
		return err
	}
	for _, key := range identityKeys {
		v, err := Run(repo, "config", "--local", "--get", key)
		if err != nil || v == "" {
			continue
		}
		if _, err := Run(path, "config", "--local", key, v); err != nil {
			return err
		}
	}
	// The branch git made for the repository's HEAD (none when it was detached) would be a
	// stale copy beside origin's: `git merge main` must not quietly merge an old main.
	made, _ := CurrentBranch(path)
	if _, err := Run(path, "checkout", "--quiet", "-B", branch, commit); err != nil {
		return err
	}
	if made != "" && made != branch {
		return DeleteBranch(path, made)
	}
	return nil
}

// CreateBranch makes branch at commit in repo; git refuses when it exists.
func CreateBranch(repo, branch, commit string) error {
	_, err := Run(repo, "branch", "--no-track", branch, commit)
	return err
}

// FetchBack brings branch from the clone at clone into repo as it is there, its objects with
// it: the clone's branch is the worker's work, so the repository's copy is replaced whatever
// it held. git never moves a branch checked out in a worktree of repo behind that checkout's
// back, so a branch checked out there is refused, saying where.
func FetchBack(repo, clone, branch string) error {
	ref := "refs/heads/" + branch
	if _, err := ResolveCommit(clone, ref); err != nil {
		return fmt.Errorf("the clone has no branch %s any more", branch)
	}
	paths, err := CheckoutsOf(repo, branch)
	if err != nil {
		return err
	}
	if len(paths) > 0 {
		return fmt.Errorf("%s is checked out at %s, and git does not move a checked-out branch (check out another branch there)", branch, paths[0])
	}
	_, err = runEnv(repo, noPrompt, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", clone, "+"+ref+":"+ref)
	return err
}
