package worker

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/state"
)

// CreatedWorktree is a worktree CreateWorktree made, and what it made for it, so that a spawn
// that then fails can undo exactly that.
type CreatedWorktree struct {
	Info          state.WorktreeInfo
	createdBranch bool
}

// CreateWorktree makes <parent>/<name> on branch (reusing the branch when an earlier worker
// left it behind); parent is <repo>-worktrees unless given (relative to the repository's
// parent directory, as --worktree-dir always was).
func (h *Host) CreateWorktree(cwd, name, branch, parent string) (*CreatedWorktree, error) {
	// A worktree of a worktree still belongs to the main repository.
	top, err := git.MainRoot(cwd)
	if err != nil {
		return nil, fmt.Errorf("not in a git repository (required for --worktree)")
	}
	if branch == "" {
		branch = name
	}
	if !git.ValidBranch(top, branch) {
		return nil, fmt.Errorf("invalid branch name '%s'", branch)
	}
	if parent == "" {
		parent = top + "-worktrees"
	} else if !filepath.IsAbs(parent) {
		parent = filepath.Join(filepath.Dir(top), parent)
	}
	path := filepath.Join(parent, name)
	git.PruneWorktrees(top)
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("worktree path %s already exists (remove it or choose another name)", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("cannot create %s: %w", filepath.Dir(path), err)
	}
	cw := &CreatedWorktree{Info: state.WorktreeInfo{Path: path, Branch: branch, BaseRepo: top}}
	if git.BranchExists(top, branch) {
		if err := git.AddWorktree(top, path, branch); err != nil {
			return nil, fmt.Errorf("cannot create worktree on existing branch '%s': %w", branch, err)
		}
	} else {
		if err := git.AddWorktreeNewBranch(top, path, branch); err != nil {
			return nil, fmt.Errorf("cannot create worktree: %w", err)
		}
		cw.createdBranch = true
	}
	return cw, nil
}

// Undo removes the worktree again, and its branch when it was made for it.
func (cw *CreatedWorktree) Undo() {
	_ = git.RemoveWorktree(cw.Info.BaseRepo, cw.Info.Path, true)
	if cw.createdBranch {
		_ = git.DeleteBranch(cw.Info.BaseRepo, cw.Info.Branch)
	}
}

// WorktreeDirty reports uncommitted or untracked changes in the worktree.
func (h *Host) WorktreeDirty(wt *state.WorktreeInfo) (bool, error) {
	if _, err := os.Stat(wt.Path); err != nil {
		return false, nil
	}
	return git.Dirty(wt.Path)
}

// RemoveWorktree deletes the worktree directory; the branch stays so its commits are kept.
// A dirty worktree is kept (and reported) unless force is set.
func (h *Host) RemoveWorktree(wt *state.WorktreeInfo, force bool) (removed bool) {
	if wt == nil {
		return true
	}
	if _, err := os.Stat(wt.Path); err != nil {
		git.PruneWorktrees(wt.BaseRepo)
		return true
	}
	dirty, err := h.WorktreeDirty(wt)
	if err != nil {
		h.Warnf("cannot check worktree %s: %v; kept it", wt.Path, err)
		return false
	}
	if dirty && !force {
		h.Warnf("worktree %s has uncommitted changes; kept it (use --force-dirty to remove it anyway)", wt.Path)
		return false
	}
	if err := git.RemoveWorktree(wt.BaseRepo, wt.Path, dirty); err != nil {
		h.Warnf("cannot remove worktree %s: %v", wt.Path, err)
		return false
	}
	return true
}
