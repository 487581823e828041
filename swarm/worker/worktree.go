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
func (m *Machine) CreateWorktree(cwd, name, branch, parent string) (*CreatedWorktree, error) {
	p, err := placeWorktree(cwd, name, branch, parent)
	if err != nil {
		return nil, err
	}
	return p.add()
}

// worktreePlace is where a worker's worktree goes: the repository it is made from, the
// branch and the path.
type worktreePlace struct{ top, branch, path string }

// placeWorktree says where a worktree of the repository cwd is in goes, and refuses a path
// that is taken or a branch name git would not take.
func placeWorktree(cwd, name, branch, parent string) (worktreePlace, error) {
	// A worktree of a worktree still belongs to the main repository.
	top, err := git.MainRoot(cwd)
	if err != nil {
		return worktreePlace{}, fmt.Errorf("not in a git repository (required for --worktree)")
	}
	if branch == "" {
		branch = name
	}
	if !git.ValidBranch(top, branch) {
		return worktreePlace{}, fmt.Errorf("invalid branch name '%s'", branch)
	}
	if parent == "" {
		parent = top + "-worktrees"
	} else if !filepath.IsAbs(parent) {
		parent = filepath.Join(filepath.Dir(top), parent)
	}
	path := filepath.Join(parent, name)
	git.PruneWorktrees(top)
	if _, err := os.Stat(path); err == nil {
		return worktreePlace{}, fmt.Errorf("worktree path %s already exists (remove it or choose another name)", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return worktreePlace{}, fmt.Errorf("cannot create %s: %w", filepath.Dir(path), err)
	}
	return worktreePlace{top: top, branch: branch, path: path}, nil
}

// add makes the place a git worktree.
func (p worktreePlace) add() (*CreatedWorktree, error) {
	cw := &CreatedWorktree{Info: state.WorktreeInfo{Path: p.path, Branch: p.branch, BaseRepo: p.top}}
	if git.BranchExists(p.top, p.branch) {
		if err := git.AddWorktree(p.top, p.path, p.branch); err != nil {
			return nil, fmt.Errorf("cannot create worktree on existing branch '%s': %w", p.branch, err)
		}
	} else {
		if err := git.AddWorktreeNewBranch(p.top, p.path, p.branch); err != nil {
			return nil, fmt.Errorf("cannot create worktree: %w", err)
		}
		cw.createdBranch = true
	}
	return cw, nil
}

// Undo removes the worktree again, and its branch when it was made for it.
func (cw *CreatedWorktree) Undo() {
	if cw.Info.Clone {
		_ = os.RemoveAll(cw.Info.Path)
	} else {
		_ = git.RemoveWorktree(cw.Info.BaseRepo, cw.Info.Path, true)
	}
	if cw.createdBranch {
		_ = git.DeleteBranch(cw.Info.BaseRepo, cw.Info.Branch)
	}
}

// WorktreeDirty reports uncommitted or untracked changes in the worktree.
func (m *Machine) WorktreeDirty(wt *state.WorktreeInfo) (bool, error) {
	if _, err := os.Stat(wt.Path); err != nil {
		return false, nil
	}
	return git.Dirty(wt.Path)
}

// RemoveWorktree deletes the worktree directory; the branch stays so its commits are kept
// (a clone's is brought back into the repository first, see FetchBack). A dirty worktree is
// kept (and reported) unless force is set.
func (m *Machine) RemoveWorktree(wt *state.WorktreeInfo, force bool) (removed bool) {
	if wt == nil {
		return true
	}
	if wt.Clone {
		return m.removeClone(wt, force)
	}
	if _, err := os.Stat(wt.Path); err != nil {
		git.PruneWorktrees(wt.BaseRepo)
		return true
	}
	dirty, keep := m.keepDirty(wt, force)
	if keep {
		return false
	}
	if err := git.RemoveWorktree(wt.BaseRepo, wt.Path, dirty); err != nil {
		m.Warnf("cannot remove worktree %s: %v", wt.Path, err)
		return false
	}
	return true
}

// keepDirty says whether the worktree has changes, and whether it is to be kept for them (or
// because they cannot be told), saying so: uncommitted work goes only when forced.
func (m *Machine) keepDirty(wt *state.WorktreeInfo, force bool) (dirty, keep bool) {
	dirty, err := m.WorktreeDirty(wt)
	if err != nil {
		m.Warnf("cannot check worktree %s: %v; kept it", wt.Path, err)
		return false, true
	}
	if dirty && !force {
		m.Warnf("worktree %s has uncommitted changes; kept it (use --force-dirty to remove it anyway)", wt.Path)
		return true, true
	}
	return dirty, false
}
