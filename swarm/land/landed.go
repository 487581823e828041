package land

import (
	"fmt"
	"os"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/state"
)

// BranchLanded says where w's branch landed, for a loop about to be resumed: "branch w1
// landed on main at abc1234" when its landing record says it landed and the target holds the
// branch as it is now (or the branch is gone since), "branch w1 is on main" when the target
// holds it without a landing of swarm's (merged by hand) and the branch has commits of its
// own. "" when it has not landed, or w has no branch, or it cannot be told: a branch still
// where it was made holds no work to have landed. A clone's branch is read in the clone, as
// its worker left it, without bringing it back.
func BranchLanded(d *state.Dir, w *state.Worker) string {
	if w.Worktree == nil || w.Worktree.Branch == "" {
		return ""
	}
	repo, branch := w.Worktree.BaseRepo, w.Worktree.Branch
	rec, err := LoadRecord(d, w.Name)
	if err != nil {
		return ""
	}
	landed := ""
	if rec != nil && rec.State == Landed {
		landed = fmt.Sprintf("branch %s landed on %s at %s", branch, rec.Target, ralph.ShortCommit(rec.Commit))
	}
	home := branchHome(w.Worktree)
	tip, err := git.ResolveCommit(home, "refs/heads/"+branch)
	if err != nil {
		return landed
	}
	target := ""
	if rec != nil {
		target = rec.Target
	} else if target, err = git.CurrentBranch(repo); err != nil {
		return ""
	}
	onto, err := git.ResolveCommit(repo, "refs/heads/"+target)
	if err != nil || !git.IsAncestor(home, tip, onto) {
		return ""
	}
	if landed != "" {
		return landed
	}
	if start, ok := git.BranchStart(repo, branch); !ok || start == tip {
		return ""
	}
	return fmt.Sprintf("branch %s is on %s", branch, target)
}

// branchHome is the repository a worker's branch moves in: its clone while there is one (it
// sees the repository's objects too, the target's among them), else the repository.
func branchHome(wt *state.WorktreeInfo) string {
	if wt.Clone {
		if _, err := os.Stat(wt.Path); err == nil {
			return wt.Path
		}
	}
	return wt.BaseRepo
}
