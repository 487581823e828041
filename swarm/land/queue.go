package land

import (
	"fmt"
	"strings"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// Candidate is one worker's branch offered to the queue.
type Candidate struct {
	Worker string
	Branch string
	// Repo is the repository the worker's worktree was made from; the target is its branch.
	Repo   string
	Target string
	// Tip is the branch's commit now; Landed that the target already holds it.
	Tip    string
	Landed bool
	// TestCommand is the loop's own (its --test-command or swarm.toml's), if it has one.
	TestCommand string
	Record      *Record
}

// Step is what the queue does with a candidate.
type Step int

const (
	StepLand Step = iota
	// StepSkip: nothing to do now (already on the target, or sent back and unchanged since).
	StepSkip
	// StepPush: landed by an earlier run whose push did not go through; --push pushes it now.
	StepPush
)

// Next is the queue's decision for one candidate, from its record and its branch alone, and
// the reason when it is passed over. Named candidates are tried again even when sent back
// unchanged (the target may have moved under them); --all waits for the worker to move its
// branch. A record left "testing" or "queued" by a run that was killed is taken up again.
// With push, a branch an earlier run landed but could not push is pushed now.
func Next(c Candidate, named, push bool) (Step, string) {
	switch {
	case c.Landed && push && c.Record != nil && c.Record.State == Landed && c.Record.Pushed == "":
		return StepPush, ""
	case c.Landed:
		return StepSkip, fmt.Sprintf("%s is already on %s", c.Branch, c.Target)
	case !named && c.Record.SentBack() && c.Record.BranchCommit == c.Tip:
		return StepSkip, fmt.Sprintf("sent back (%s), branch unchanged since", strings.ReplaceAll(c.Record.State, "_", " "))
	}
	return StepLand, ""
}

// Finished reports a worker whose work is over: a loop that completed, or a plain worker that
// stopped. A loop stopped for any other reason has not finished its work.
func Finished(w *state.Worker, st *ralph.State) bool {
	if st != nil {
		return st.Status == ralph.StatusStopped && st.ExitReason == "complete"
	}
	return w.Status == state.StatusStopped
}

// Candidates are the workers to offer, in order: those named (which must have a branch), or
// with all every finished worker with a branch, oldest first. into names the target branch;
// empty: the branch checked out in the worker's base repository.
func Candidates(h *worker.Host, names []string, all bool, into string) ([]Candidate, error) {
	ws, _, err := h.Targets(names, all, func(w *state.Worker) bool {
		return w.Worktree != nil && w.Worktree.Branch != "" && Finished(w, h.LoopState(w.Name))
	})
	if err != nil {
		return nil, err
	}
	var out []Candidate
	for _, w := range ws {
		c, err := candidate(h, w, into)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func candidate(h *worker.Host, w *state.Worker, into string) (Candidate, error) {
	if w.Worktree == nil || w.Worktree.Branch == "" {
		return Candidate{}, fmt.Errorf("%s has no branch of its own (spawn it with --worktree)", w.Name)
	}
	c := Candidate{Worker: w.Name, Branch: w.Worktree.Branch, Repo: w.Worktree.BaseRepo, Target: into}
	if c.Target == "" {
		b, err := git.CurrentBranch(c.Repo)
		if err != nil {
			return c, fmt.Errorf("%s: no branch checked out in %s to land into (use --into BRANCH): %w", w.Name, c.Repo, err)
		}
		c.Target = b
	}
	tip, err := git.ResolveCommit(c.Repo, "refs/heads/"+c.Branch)
	if err != nil {
		return c, fmt.Errorf("%s: branch %s: %w", w.Name, c.Branch, err)
	}
	target, err := git.ResolveCommit(c.Repo, "refs/heads/"+c.Target)
	if err != nil {
		return c, fmt.Errorf("target branch %s: %w", c.Target, err)
	}
	c.Tip, c.Landed = tip, git.IsAncestor(c.Repo, tip, target)
	if st := h.LoopState(w.Name); st != nil && st.Supervision != nil {
		c.TestCommand = st.Supervision.TestCommand
	}
	c.Record, err = LoadRecord(h.Dir(), w.Name)
	return c, err
}
