package swarm

import (
	"os"
	"path/filepath"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// git runs git in dir (the loop layer and the worktree code share one runner).
var git = ralph.Git

// createdWorktree remembers what spawn created, so a failed spawn can undo exactly that.
type createdWorktree struct {
	info          state.WorktreeInfo
	createdBranch bool
}

// createWorktree makes <repo>-worktrees/<name> on branch (reusing the branch when an earlier
// worker left it behind).
func createWorktree(cwd, name, branch string) (*createdWorktree, error) {
	top, err := git(cwd, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fail("not in a git repository (required for --worktree)")
	}
	// A worktree of a worktree still belongs to the main repository.
	if common, err := git(cwd, "rev-parse", "--path-format=absolute", "--git-common-dir"); err == nil && filepath.Base(common) == ".git" {
		top = filepath.Dir(common)
	}
	if branch == "" {
		branch = name
	}
	if _, err := git(top, "check-ref-format", "--branch", branch); err != nil {
		return nil, fail("invalid branch name '%s'", branch)
	}
	path := filepath.Join(top+"-worktrees", name)
	_, _ = git(top, "worktree", "prune")
	if _, err := os.Stat(path); err == nil {
		return nil, fail("worktree path %s already exists (remove it or choose another name)", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fail("cannot create %s: %v", filepath.Dir(path), err)
	}
	cw := &createdWorktree{info: state.WorktreeInfo{Path: path, Branch: branch, BaseRepo: top}}
	if _, err := git(top, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err == nil {
		if _, err := git(top, "worktree", "add", path, branch); err != nil {
			return nil, fail("cannot create worktree on existing branch '%s': %v", branch, err)
		}
	} else {
		if _, err := git(top, "worktree", "add", "-b", branch, path); err != nil {
			return nil, fail("cannot create worktree: %v", err)
		}
		cw.createdBranch = true
	}
	return cw, nil
}

// undo removes a worktree created by a spawn that then failed.
func (cw *createdWorktree) undo() {
	_, _ = git(cw.info.BaseRepo, "worktree", "remove", "--force", cw.info.Path)
	if cw.createdBranch {
		_, _ = git(cw.info.BaseRepo, "branch", "-D", cw.info.Branch)
	}
}

// worktreeDirty reports uncommitted or untracked changes in the worktree.
func worktreeDirty(wt *state.WorktreeInfo) (bool, error) {
	if _, err := os.Stat(wt.Path); err != nil {
		return false, nil
	}
	out, err := git(wt.Path, "status", "--porcelain")
	if err != nil {
		return false, err
	}
	return out != "", nil
}

// removeWorktree deletes the worktree directory; the branch stays so its commits are kept.
// A dirty worktree is kept (and reported) unless force is set.
func removeWorktree(e *env, wt *state.WorktreeInfo, force bool) (removed bool) {
	if wt == nil {
		return true
	}
	if _, err := os.Stat(wt.Path); err != nil {
		_, _ = git(wt.BaseRepo, "worktree", "prune")
		return true
	}
	dirty, err := worktreeDirty(wt)
	if err != nil {
		e.warnf("cannot check worktree %s: %v; kept it", wt.Path, err)
		return false
	}
	if dirty && !force {
		e.warnf("worktree %s has uncommitted changes; kept it (use --force-dirty to remove it anyway)", wt.Path)
		return false
	}
	args := []string{"worktree", "remove"}
	if dirty {
		args = append(args, "--force")
	}
	if _, err := git(wt.BaseRepo, append(args, wt.Path)...); err != nil {
		e.warnf("cannot remove worktree %s: %v", wt.Path, err)
		return false
	}
	return true
}
