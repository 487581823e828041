package ralph

import (
	"fmt"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"
)

// The loop's transitions: between iterations, when an iteration ends, and after it ended.

// Counters are the failure counts a decision starts from.
type Counters struct {
	Iteration           int
	ConsecutiveFailures int
	TotalFailures       int
}

// BeforeIteration decides whether the next iteration may start: the loop is complete at its
// iteration limit, and the stop files end it before an agent is started for nothing.
func BeforeIteration(c Counters, lim Limits, m Markers) (Decision, bool) {
	if c.Iteration >= lim.MaxIterations {
		d := outOfIterations(c.Iteration, lim)
		if c.Iteration > 0 && c.TotalFailures >= c.Iteration {
			d = allFailed(c.Iteration)
		}
		d.Signals = []string{SignalMaxIterations}
		return d, false
	}
	if d, stop := stopRules(m, nil, false, "", lim); stop {
		return d, false
	}
	return Decision{}, true
}

// outOfIterations ends a loop that used all its iterations. That is not completion, and with
// checkers configured it says so: they never agreed that the work was done.
func outOfIterations(n int, lim Limits) Decision {
	var d Decision
	// Running out of iterations says nothing about the work: "complete" is kept for a loop
	// whose completion was verified.
	msg := fmt.Sprintf("max iterations (%d) reached", n)
	if lim.Checks > 0 {
		msg = fmt.Sprintf("max iterations reached (%d) without completion: the checks never passed", n)
	}
	d.Say("%s", msg)
	d.Stop(StatusStopped, "max_iterations", msg)
	return d
}

// allFailed ends a loop that used its iterations without one succeeding: that is a failure
// to report, never a completion.
func allFailed(n int) Decision {
	var d Decision
	msg := fmt.Sprintf("max iterations reached (%d) and every iteration failed", n)
	d.Say("%s", msg)
	d.Stop(StatusFailed, "all_iterations_failed", msg)
	d.Escalate = msg
	return d
}

// DonePatternSeen ends the loop as done: the agent printed the done pattern.
func DonePatternSeen(n int) Decision {
	var d Decision
	d.Say("done pattern matched, stopping loop")
	d.event("DONE", "iteration %d done pattern matched", n)
	d.Stop(StatusStopped, "done_pattern", "")
	d.EndAgent = true
	return d
}

// Announce says why an iteration is being ended, before the agent is stopped. A paused loop
// does not restart, so it does not say so.
func Announce(n int, e Ending, lim Limits, running bool) Decision {
	var d Decision
	switch e {
	case EndInactive:
		secs := lim.inactivity()
		if n >= lim.MaxIterations || !running {
			d.Say("inactivity timeout (%ds)", secs)
		} else {
			d.Say("inactivity timeout (%ds), restarting", secs)
		}
		d.event("TIMEOUT", "iteration %d inactivity %ds", n, secs)
	case EndTurnEnded:
		if n >= lim.MaxIterations || !running {
			d.Say("the agent's turn ended without the done marker")
		} else {
			d.Say("the agent's turn ended without the done marker, restarting")
		}
		d.event("TURN", "iteration %d turn ended without the done marker (the agent's Stop signal)", n)
	case EndHung:
		d.supervisionSay("agent hung (no progress on screen for %ds) — killing it and restarting", lim.Supervision.HangTimeoutSeconds)
		d.event("HANG", "iteration %d no progress for %ds", n, lim.Supervision.HangTimeoutSeconds)
	case EndIterationTimeout:
		d.supervisionSay("iteration %d exceeded %ds — killing the agent", n, lim.Supervision.IterationTimeout)
		d.event("TIMEOUT", "iteration %d exceeded %ds", n, lim.Supervision.IterationTimeout)
	case EndContextLimit:
		d.Say("context use passed %d%% (--max-context %d%% + 15), ending iteration %d", lim.MaxContext+15, lim.MaxContext, n)
		d.event("CONTEXT", "iteration %d context_limit: over %d%%, agent ended", n, lim.MaxContext+15)
	case EndCompaction:
		d.Say("the agent is compacting its conversation, ending iteration %d", n)
		d.event("CONTEXT", "iteration %d compaction: agent ended", n)
	case EndDoneMarker:
		if lim.Checks > 0 {
			d.Say("done marker seen in iteration %d, ending the agent to verify", n)
		}
	case EndBudget:
		d.Say("the loop's cost passed its budget of $%.2f (--max-cost), ending iteration %d", lim.MaxCost, n)
	}
	return d
}

// RunFacts is what the driver knows once an iteration's agent is gone.
type RunFacts struct {
	Counters
	Ending      Ending
	ExitCode    *int // nil when unknown
	FatalReason string
	Duration    time.Duration
	Markers     Markers
	Running     bool // the loop is still running (not paused by the user meanwhile)
	Stagnation  StagnationFacts
	Signals     []string    // what the iteration offered as signs of being done (Signal*)
	Verdict     Verdict     // the checkers' answer, when the signals called for them
	Reverted    bool        // the test gate reverted the iteration's commits
	Untested    bool        // the tests or checkers were cut short by a stop (EndFacts.Untested)
	Spent       float64     // USD the loop has cost so far, this iteration included
	Limit       *LimitFacts // the agent hit its usage limit
	// LastLines are the agent's last non-blank lines on screen as the iteration left it,
	// above its input area: what a failure is kept with.
	LastLines []string
}

// AfterRun is the verdict on an ended iteration (see iteration_end.go for the order that
// leads here): verified completion, a believed done marker, a claim voided by a rollback, a
// stop rule, the next iteration, a backoff before retrying, or giving up after too many
// failures.
func AfterRun(f RunFacts, lim Limits) Decision {
	claim := claimed(f.Signals, lim)
	switch {
	case f.Untested:
		return untested(f)
	case f.Reverted && len(claim) > 0:
		return voided(f, lim, claim)
	case believedMarker(f, lim):
		d := DonePatternSeen(f.Iteration)
		d.Signals = f.Signals
		return d
	case !f.Verdict.Ran:
		return afterRun(f, lim)
	}
	if f.Verdict.Passed() {
		d := Verified(f.Iteration, f.Signals, len(f.Verdict.Results))
		d.Verdict, d.Signals = f.Verdict.Results, f.Signals
		return d
	}
	// The agent's claim was not true: the DONE file it left does not end the loop either.
	removeDone := f.Markers.DoneFile
	f.Markers.DoneFile = false
	var checks Decision
	rejected(&checks, f.Iteration, f.Verdict)
	d := afterRun(f, lim)
	d.Lines = append(checks.Lines, d.Lines...)
	d.Events = append(checks.Events, d.Events...)
	d.Tell = append(checks.Tell, d.Tell...)
	d.RemoveDoneFile, d.Verdict = removeDone, f.Verdict.Results
	return d
}

// afterRun is AfterRun without the checkers' verdict.
func afterRun(f RunFacts, lim Limits) Decision {
	d, stop := stopRules(f.Markers, f.ExitCode, f.Ending == EndExited, f.FatalReason, lim)
	if d.ExitReason == "fatal_error" {
		d.failedWith(f, fmt.Sprint(*f.ExitCode))
	}
	if !stop && f.Limit != nil && f.Iteration < lim.MaxIterations && f.Running {
		return LimitHit(f.Iteration, *f.Limit, lim)
	}
	if !stop {
		d = withStagnation(afterIteration(f, lim), f, lim)
		d = withBudget(d, f, lim)
	}
	if d.Ended {
		d.Signals = f.Signals
		if d.ExitReason == "max_iterations" {
			d.Signals = append(append([]string{}, f.Signals...), SignalMaxIterations)
		}
	}
	return d
}

// afterIteration is AfterRun for an iteration no stop rule ended.
func afterIteration(f RunFacts, lim Limits) Decision {
	n := f.Iteration
	failed, exit := outcome(f.Ending, f.ExitCode)
	d := Decision{Phase: PhaseEnded, SetCounters: true, LastExitCode: f.ExitCode,
		ConsecutiveFailures: f.ConsecutiveFailures, TotalFailures: f.TotalFailures}
	switch {
	case failed:
		d.ConsecutiveFailures++
		d.TotalFailures++
	case f.Ending == EndExited:
		d.ConsecutiveFailures = 0
	}
	if f.Ending == EndInactive || f.Ending == EndTurnEnded {
		// Quiet is not a failure, and it says nothing about success either.
		if n >= lim.MaxIterations && f.Running {
			c := outOfIterations(n, lim)
			d.Lines, d.Events = c.Lines, c.Events
			d.Status, d.ExitReason, d.Ended = c.Status, c.ExitReason, true
		}
		return d
	}
	if !failed {
		d.Say("iteration %d completed (exit: %s, duration: %s)", n, exit, words.Duration(f.Duration))
		d.event("END", "iteration %d exit=%s duration=%s", n, exit, words.Compact(f.Duration))
		return d
	}
	return failure(d, f, lim, exit)
}

// failure counts a failed iteration: give up at the failure limit, otherwise back off.
func failure(d Decision, f RunFacts, lim Limits, exit string) Decision {
	n := f.Iteration
	d.event("FAIL", "iteration %d exit=%s duration=%s", n, exit, words.Compact(f.Duration))
	d.failedWith(f, exit)
	if d.ConsecutiveFailures >= lim.Supervision.MaxFailures {
		msg := fmt.Sprintf("%d consecutive failures, stopping loop", d.ConsecutiveFailures)
		d.Say("%s", msg)
		d.Stop(StatusFailed, "consecutive_failures", msg)
		d.Escalate = fmt.Sprintf("%d consecutive failures (last exit: %s)", d.ConsecutiveFailures, exit)
		return d
	}
	if n >= lim.MaxIterations {
		d.Say("iteration %d failed (exit: %s)", n, exit)
		return d
	}
	wait := RetryWait(d.ConsecutiveFailures, lim.Supervision)
	d.Say("iteration %d failed (exit: %s), retrying in %ds (attempt %d/%d)", n, exit, int(wait.Seconds()),
		d.ConsecutiveFailures, lim.Supervision.MaxFailures)
	if lim.Supervision.Enabled {
		// Supervision's own word on its decision, as its display shows every one of them.
		d.supervisionSay("agent %s — retrying in %ds (attempt %d/%d)", failedHow(f.Ending, exit), int(wait.Seconds()),
			d.ConsecutiveFailures, lim.Supervision.MaxFailures)
	}
	d.Phase, d.Backoff = PhaseBackoff, wait
	return d
}

// failedHow is how a supervision line names a failed agent's end: "exited (exit 1)",
// "failed (hung)".
func failedHow(e Ending, exit string) string {
	if e == EndExited {
		return fmt.Sprintf("exited (exit %s)", exit)
	}
	return fmt.Sprintf("failed (%s)", exit)
}

// RetryWait is the wait before retrying after the n-th consecutive failure: supervision's
// fixed wait when one is configured, otherwise min(2^(n-1), 300) s.
func RetryWait(n int, rc SupervisionConfig) time.Duration {
	if rc.Enabled && rc.RetryBackoffSeconds > 0 {
		return time.Duration(rc.RetryBackoffSeconds) * time.Second
	}
	return Backoff(n)
}

// Backoff is the wait before retrying after the n-th consecutive failure: min(2^(n-1), 300) s.
func Backoff(n int) time.Duration {
	if n < 1 {
		n = 1
	}
	if n > 10 {
		return 300 * time.Second
	}
	s := 1 << (n - 1)
	if s > 300 {
		s = 300
	}
	return time.Duration(s) * time.Second
}

// MaxConsecutiveFailures stops the loop as failed.
const MaxConsecutiveFailures = 5

// outcome says whether an ending counts as a failure, and how the log names its exit.
func outcome(e Ending, code *int) (failed bool, exit string) {
	switch e {
	case EndExited:
		if code == nil {
			return true, "unknown"
		}
		return *code != 0, fmt.Sprint(*code)
	case EndInactive:
		return false, "inactive"
	case EndHung:
		return true, "hung"
	case EndIterationTimeout:
		return true, "iteration timeout"
	case EndReadyTimeout:
		return true, "ready timeout"
	case EndContextLimit:
		// A full context is the agent's nature, not a failure: the next iteration starts fresh.
		return false, "context_limit"
	case EndCompaction:
		return false, "compaction"
	case EndDoneMarker:
		return false, "done"
	case EndDoneFile:
		// Only reached when checkers disproved the DONE file: a false claim, not a crash.
		return false, "done file"
	case EndBudget:
		return false, "budget"
	case EndAPIError:
		return true, "api_error"
	case EndUsageLimit:
		return false, "usage_limit"
	case EndTurnEnded:
		return false, "turn_end"
	}
	return true, "unknown"
}

// stopRules are the rules that end a loop without counting a failure, before a run (ran
// false) and after one: the DONE file (success), a DONE that cannot be read (error), exit
// code 42 or the WAIT_WITHOUT_RESTART file (stopped, waiting), and fatal start errors.
func stopRules(m Markers, code *int, ran bool, fatal string, lim Limits) (Decision, bool) {
	var d Decision
	switch {
	case m.DoneFileErr != "":
		d.Say("fatal error: %s", m.DoneFileErr)
		d.Stop(StatusFailed, "done_is_directory", m.DoneFileErr)
		d.Escalate = m.DoneFileErr
	case m.DoneFile:
		d.Say("task completed (DONE marker present), stopping loop")
		d.event("DONE", "DONE file present at %s", m.DonePath)
		d.Stop(StatusStopped, "done_file", "")
	case m.WaitFile || code != nil && *code == ExitWaitWithoutRestart:
		why := "WAIT_WITHOUT_RESTART file present"
		if code != nil && *code == ExitWaitWithoutRestart {
			why = "agent exited with 42"
		}
		d.Say("wait-without-restart signal detected (%s), stopping loop", why)
		d.event("WAIT", "%s", why)
		d.Stop(StatusStopped, "wait_without_restart", "")
	case ran && code != nil && (*code == 126 || *code == 127):
		d.Say("fatal error: %s, stopping loop (no retries)", fatal)
		d.Stop(StatusFailed, "fatal_error", fatal)
		if lim.Supervision.Enabled {
			d.Escalate = "fatal error: " + fatal
		}
	default:
		return d, false
	}
	return d, true
}
