package git

import "path/filepath"

// MainRoot is the top directory of the main working tree of the repository dir is in: from
// inside a linked worktree, the repository it belongs to, so worktrees never nest.
func MainRoot(dir string) (string, error) {
	top, err := Run(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	// A bare repository or a separate git dir has no ".git" to strip; the top level is right.
	if common, err := Run(dir, "rev-parse", "--path-format=absolute", "--git-common-dir"); err == nil && filepath.Base(common) == ".git" {
		top = filepath.Dir(common)
	}
	return top, nil
}

// ValidBranch reports whether name may be used as a branch name.
func ValidBranch(repo, name string) bool {
	_, err := Run(repo, "check-ref-format", "--branch", name)
	return err == nil
}

// BranchExists reports whether the local branch exists.
func BranchExists(repo, branch string) bool {
	_, err := Run(repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	return err == nil
}

// AddWorktree checks the existing branch out in a new worktree at path.
func AddWorktree(repo, path, branch string) error {
	_, err := Run(repo, "worktree", "add", path, branch)
	return err
}

// AddWorktreeNewBranch creates branch at HEAD and checks it out in a new worktree at path.
func AddWorktreeNewBranch(repo, path, branch string) error {
	_, err := Run(repo, "worktree", "add", "-b", branch, path)
	return err
}

// RemoveWorktree removes the worktree at path; git refuses one with changes unless force.
func RemoveWorktree(repo, path string, force bool) error {
	args := []string{"worktree", "remove"}
	if force {
		args = append(args, "--force")
	}
	_, err := Run(repo, append(args, path)...)
	return err
}

// PruneWorktrees forgets worktrees whose directories are gone. It is housekeeping: a failure
// changes nothing the caller relies on, so it is not reported.
func PruneWorktrees(repo string) {
	_, _ = Run(repo, "worktree", "prune")
}

// DeleteBranch deletes the local branch, merged or not.
func DeleteBranch(repo, branch string) error {
	_, err := Run(repo, "branch", "-D", branch)
	return err
}

// Dirty reports uncommitted changes or untracked files in the worktree at dir.
func Dirty(dir string) (bool, error) {
	out, err := Run(dir, "status", "--porcelain")
	if err != nil {
		return false, err
	}
	return out != "", nil
}
