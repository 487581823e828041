package ralph

import (
	"errors"
	"fmt"

	"github.com/swarm-dev/swarm/ralph/words"
)

// What users (and signals) do to a loop: pause, resume, kill. Like the loop's own decisions,
// each is a function of the state as it is under the loop lock, carried out by Dir.Transition.

// Pause stops a running loop from starting new iterations; the current agent finishes. why
// goes to the log ("paused by user", "signal SIGTERM").
func Pause(st *State, why, reason string) (Decision, error) {
	var d Decision
	switch st.Status {
	case StatusRunning, StatusWaiting:
		d.Status, d.ExitReason, d.PausedNow = StatusPaused, reason, true
		if st.Status == StatusWaiting {
			// Resuming later starts afresh rather than going on waiting.
			d.Phase = PhaseEnded
		}
		d.event("PAUSE", "%s", why)
		return d, nil
	case StatusPaused:
		return d, ErrUnchanged
	}
	return d, fmt.Errorf("%w (%s)", ErrNotRunning, st.Status)
}

// Errors of the user's transitions: nothing to do, and not applicable.
var (
	ErrUnchanged  = errors.New("already in that state")
	ErrNotRunning = errors.New("not running")
	ErrFinished   = errors.New("finished")
	// ErrDone and ErrLanded refuse to start again, by accident, a loop whose work is over: it
	// ended done, or its branch landed. Resuming it would run its task again.
	ErrDone   = errors.New("done")
	ErrLanded = errors.New("landed")
)

// ResumeRequest is what `swarm ralph resume` asks for.
type ResumeRequest struct {
	MonitorAlive  bool
	MaxIterations int // > 0: extend (or set) the loop's iteration limit
	// Again runs a loop whose work is over once more: one that ended done, or whose branch
	// landed (`swarm ralph resume --again`, and a branch sent back by swarm land).
	Again bool
	// Landed says where the loop's branch landed ("branch w1 landed on main at abc1234"); ""
	// when it has not.
	Landed string
}

// Resume continues a paused loop, revives a running loop whose monitor is gone, restarts a
// failed loop with its failure count reset, and runs more iterations of a finished one when
// the limit is raised. A loop that ended done, or whose branch landed, goes on only when
// asked to run again. It reports whether a monitor must be started.
func Resume(st *State, r ResumeRequest) (Decision, bool, error) {
	var d Decision
	if err := workOver(st, r); err != nil {
		return d, false, err
	}
	max := st.MaxIterations
	if r.MaxIterations > 0 {
		if r.MaxIterations < st.CurrentIteration {
			return d, false, fmt.Errorf("--max-iterations %d is below the current iteration %d", r.MaxIterations, st.CurrentIteration)
		}
		max = r.MaxIterations
		d.MaxIterations = max
	}
	switch {
	case st.Status == StatusPaused:
		d.event("RESUME", "resumed by user")
	case st.Status == StatusWaiting:
		d.event("RESUME", "resumed by user before the usage limit reset")
		d.Phase = PhaseEnded
	case st.Status == StatusRunning && !r.MonitorAlive:
		d.event("RESUME", "monitor restarted")
	case st.Status == StatusRunning:
		if d.MaxIterations > 0 {
			d.event("RESUME", "iteration limit set to %d", max)
			return d, false, nil
		}
		return d, false, ErrUnchanged
	case st.Status == StatusFailed:
		d.event("RESUME", "resumed after failure (%s; %d consecutive failures reset)", st.ExitReason, st.ConsecutiveFailures)
		d.SetCounters, d.ConsecutiveFailures, d.TotalFailures, d.LastExitCode = true, 0, st.TotalFailures, st.LastExitCode
	case st.CurrentIteration < max && r.Again:
		d.event("RESUME", "run again after %s, iteration limit %d", st.ExitReason, max)
	case st.CurrentIteration < max:
		d.event("RESUME", "resumed after %s, iteration limit %d", st.ExitReason, max)
	default:
		return d, false, fmt.Errorf("%w (%s after %s)", ErrFinished, st.ExitReason, words.Plural(st.CurrentIteration, "iteration"))
	}
	d.Status, d.ClearExitReason, d.Unpause = StatusRunning, true, true
	if st.Status != StatusRunning && st.Status != StatusPaused {
		// The last iteration was evaluated; the next one starts fresh.
		d.Phase = PhaseEnded
	}
	if st.Status == StatusWaiting && r.MonitorAlive {
		// Its monitor, waiting for the reset, sees the loop running and goes on.
		return d, false, nil
	}
	return d, !r.MonitorAlive, nil
}

// workOver refuses to resume a loop that ended with its work over, unless asked to run it
// again: its branch landed, or it ended done. A loop paused, waiting or still running is
// not over, whatever its branch.
func workOver(st *State, r ResumeRequest) error {
	if r.Again || st.Status != StatusStopped && st.Status != StatusFailed {
		return nil
	}
	if r.Landed != "" {
		return fmt.Errorf("%w (%s)", ErrLanded, r.Landed)
	}
	if word, _, _ := EndWords(st.Status, st.ExitReason); word == EndDone {
		return fmt.Errorf("%w (%s after %s)", ErrDone, st.ExitReason, words.Plural(st.CurrentIteration, "iteration"))
	}
	return nil
}

// Killed stops a loop for good: `swarm kill` of its worker.
func Killed(st *State) Decision {
	var d Decision
	if st.Status != StatusRunning && st.Status != StatusPaused && st.Status != StatusWaiting {
		return d
	}
	d.Status, d.ExitReason, d.Ended, d.Unpause = StatusStopped, "killed", true, true
	d.event("KILL", "loop stopped by swarm kill")
	return d
}
