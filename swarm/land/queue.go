package land

import (
	"fmt"
	"strings"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// Candidate is one worker's branch offered to the queue.
type Candidate struct {
	Worker string
	Branch string
	// Repo is the repository the worker's worktree was made from; the target is its branch.
	Repo string
	// Clone is the worker's worktree when it is a clone of Repo: its branch was brought back
	// into Repo (worker.FetchBack) to be offered, and its worker moves it in the clone.
	Clone  string
	Target string
	// Tip is the branch's commit now; Landed that the target already holds it.
	Tip    string
	Landed bool
	// TestCommand is the loop's own (its --test-command or swarm.toml's), if it has one.
	TestCommand string
	Record      *Record
	// Problem says, in one line, why the branch cannot be taken up at all ("branch w2 no
	// longer exists"); Gone that it is because the branch or its repository is gone.
	Problem string
	Gone    bool
}

// Step is what the queue does with a candidate.
type Step int

const (
	StepLand Step = iota
	// StepSkip: nothing to do now (already on the target, or sent back and unchanged since).
	StepSkip
	// StepPush: landed by an earlier run whose push did not go through; --push pushes it now.
	StepPush
	// StepCannot: the branch cannot be taken up (the reason says why); it has not landed, and
	// the others go on.
	StepCannot
)

// Next is the queue's decision for one candidate, from its record and its branch alone, and
// the reason when it is passed over. Named candidates are tried again even when sent back
// unchanged (the target may have moved under them); --all waits for the worker to move its
// branch. A record left "testing" or "queued" by a run that was killed is taken up again.
// With push, a branch an earlier run landed but could not push is pushed now. A branch that
// landed and was deleted since is done with; one deleted before it landed cannot land.
func Next(c Candidate, named, push bool) (Step, string) {
	switch {
	case c.Gone && c.Record != nil && c.Record.State == Landed:
		return StepSkip, fmt.Sprintf("landed on %s earlier at %s; %s", c.Record.Target, ralph.ShortCommit(c.Record.Commit), c.Problem)
	case c.Problem != "":
		return StepCannot, c.Problem
	case c.Landed && push && c.Record != nil && c.Record.State == Landed && c.Record.Pushed == "":
		return StepPush, ""
	case c.Landed:
		return StepSkip, fmt.Sprintf("%s is already on %s", c.Branch, c.Target)
	case !named && c.Record.SentBack() && c.Record.BranchCommit == c.Tip:
		return StepSkip, fmt.Sprintf("sent back (%s), branch unchanged since", strings.ReplaceAll(c.Record.State, "_", " "))
	}
	return StepLand, ""
}

// Offered reports a worker whose work is over, which --all takes to the queue: a loop that
// ended done (ralph.EndWords: a done marker or pattern, the DONE file, its checkers passed),
// or a worker that is no loop's and exited 0. loop is nil for a worker that is no loop's.
// A loop that ended otherwise (out of iterations, failed, stagnated, killed), a worker that
// exited with another code, and whatever still runs are landed only when named.
func Offered(w *state.Worker, loop *ralph.State) bool {
	if loop != nil {
		word, _, _ := ralph.EndWords(loop.Status, loop.ExitReason)
		return word == ralph.EndDone
	}
	return w.Status == state.StatusStopped && w.ExitCode != nil && *w.ExitCode == 0
}
