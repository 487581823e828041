package worker

import (
	"fmt"
	"os"

	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/state"
)

// A worker's worktree may be a clone of the repository instead of a git worktree (a
// sandboxed agent's, SpawnOptions.CloneWorktree): the same path and branch, made and removed
// with the same rules, but with refs of its own, so that nothing the agent does in it moves
// a branch of the repository. The branch is made in the repository too, as for a git
// worktree, and brought back there (FetchBack) by those who need it: landing, and the
// removal of the clone, so that it outlives the clone as it outlives a git worktree.

// CreateClone makes <parent>/<name> as CreateWorktree does, as a clone of the repository
// that borrows its objects (git.CloneWorktree), on branch: made at the repository's HEAD, or
// the existing one unless a checkout of the repository has it (git would not let a fetch move
// it there).
func (m *Machine) CreateClone(cwd, name, branch, parent string) (*CreatedWorktree, error) {
	p, err := placeWorktree(cwd, name, branch, parent)
	if err != nil {
		return nil, err
	}
	return p.clone()
}

// clone makes the place a clone of its repository.
func (p worktreePlace) clone() (*CreatedWorktree, error) {
	cw := &CreatedWorktree{Info: state.WorktreeInfo{Path: p.path, Branch: p.branch, BaseRepo: p.top, Clone: true}}
	var commit string
	if git.BranchExists(p.top, p.branch) {
		paths, err := git.CheckoutsOf(p.top, p.branch)
		if err == nil && len(paths) > 0 {
			err = fmt.Errorf("it is checked out at %s", paths[0])
		}
		if err == nil {
			commit, err = git.ResolveCommit(p.top, "refs/heads/"+p.branch)
		}
		if err != nil {
			return nil, fmt.Errorf("cannot create worktree on existing branch '%s': %w", p.branch, err)
		}
	} else {
		if commit = git.Head(p.top); commit == "" {
			return nil, fmt.Errorf("cannot create worktree: %s has no commit yet", p.top)
		}
		if err := git.CreateBranch(p.top, p.branch, commit); err != nil {
			return nil, fmt.Errorf("cannot create worktree: %w", err)
		}
		cw.createdBranch = true
	}
	if err := git.CloneWorktree(p.top, p.path, p.branch, commit); err != nil {
		cw.Undo()
		return nil, fmt.Errorf("cannot create worktree: %w", err)
	}
	return cw, nil
}

// cloneHolding is the worker, other than name, whose clone of repo is on branch: two clones
// on one branch would each bring it back over the other's work, so a branch is one worker's,
// as git keeps a branch to one worktree.
func cloneHolding(ws *state.Workers, name, repo, branch string) *state.Worker {
	if ws == nil {
		return nil
	}
	for _, w := range ws.List() {
		if wt := w.Worktree; w.Name != name && wt != nil && wt.Clone && wt.BaseRepo == repo && wt.Branch == branch {
			return w
		}
	}
	return nil
}

// FetchBack brings the branch of a clone back into its repository (git.FetchBack), for
// whoever needs it there: landing it, removing the clone. A git worktree's branch is the
// repository's already, and a clone that is gone has nothing more to give: nil for both.
func FetchBack(wt *state.WorktreeInfo) error {
	if wt == nil || !wt.Clone {
		return nil
	}
	if _, err := os.Stat(wt.Path); err != nil {
		return nil
	}
	if err := git.FetchBack(wt.BaseRepo, wt.Path, wt.Branch); err != nil {
		return fmt.Errorf("cannot bring branch %s back from its clone %s: %w", wt.Branch, wt.Path, err)
	}
	return nil
}

// removeClone removes a clone as RemoveWorktree removes a git worktree, its branch brought
// back into the repository first; a branch that cannot be keeps the clone, so no commit of
// it is lost.
func (m *Machine) removeClone(wt *state.WorktreeInfo, force bool) bool {
	if _, err := os.Stat(wt.Path); err != nil {
		return true
	}
	if _, keep := m.keepDirty(wt, force); keep {
		return false
	}
	if err := FetchBack(wt); err != nil {
		m.Warnf("%v; the worktree is kept", err)
		return false
	}
	if err := os.RemoveAll(wt.Path); err != nil {
		m.Warnf("cannot remove worktree %s: %v", wt.Path, err)
		return false
	}
	return true
}
