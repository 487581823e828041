package ralph

import (
	"fmt"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state/eventlog"
)

// Supervision's rules as policy: when a working agent counts as ended (quiet, hung, out of
// time), whether an iteration's commits are kept or reverted, and when a monitor that keeps
// dying is given up on. The failure limit and backoff are in decide.go (failure, RetryWait).

// WatchFacts is what the driver knows about a working agent at one moment.
type WatchFacts struct {
	Now          time.Time
	Started      time.Time // the iteration's start
	LastChange   time.Time // the screen last changed at all
	LastProgress time.Time // the screen last changed other than by spinners and counters
	Inactivity   time.Duration
	Hang         time.Duration // 0: hang detection off
	Limit        time.Duration // 0: no limit on an iteration's wall time
	// Held: the agent waits in swarm's permission hook for a person's answer (permission.go):
	// neither quiet nor hung, however still its screen; the wait counts as activity.
	Held bool
}

// WatchLimits turns the loop's settings into the durations a watch applies. Without
// supervision there is neither hang detection nor an iteration limit.
func WatchLimits(lim Limits) (inactivity, hang, limit time.Duration) {
	inactivity = time.Duration(lim.inactivity()) * time.Second
	if lim.Supervision.Enabled {
		hang = time.Duration(lim.Supervision.HangTimeoutSeconds) * time.Second
		limit = time.Duration(lim.Supervision.IterationTimeout) * time.Second
	}
	return inactivity, hang, limit
}

// OutOfTime reports whether the iteration ran past its wall-time limit.
func OutOfTime(f WatchFacts) bool {
	return f.Limit > 0 && f.Now.Sub(f.Started) >= f.Limit
}

// QuietAt is when Quiet would first hold if the screen stays as it is: the watch looks again
// then, so a quiet agent is ended on time rather than at the next regular look.
func QuietAt(f WatchFacts) time.Time {
	at := f.LastChange.Add(f.Inactivity)
	if f.Hang > 0 {
		if t := f.LastProgress.Add(f.Hang); t.Before(at) {
			at = t
		}
	}
	return at
}

// Quiet decides, after a look at the screen, whether the agent has gone quiet for too long
// (inactive) or stopped making progress (hung).
func Quiet(f WatchFacts) (Ending, bool) {
	if f.Held {
		return 0, false
	}
	if f.Now.Sub(f.LastChange) >= f.Inactivity {
		return EndInactive, true
	}
	if f.Hang > 0 && f.Now.Sub(f.LastProgress) >= f.Hang {
		return EndHung, true
	}
	return 0, false
}

// GateStep is the next step of the test gate.
type GateStep int

// The test gate's steps.
const (
	GateDone        GateStep = iota // nothing (more) to do: the commits stay
	GateRunTests                    // run the test command at the iteration's newest commit
	GateRunBaseline                 // run it at the commit the iteration started from
	GateRevert                      // revert the iteration's commits, newest first
	GateStop                        // the test command cannot run: stop the loop
)

// GateFacts is what is known so far about an iteration's commits and the tests.
type GateFacts struct {
	Configured     bool     // a test command with rollback on, and a start commit recorded
	StartCommit    string   // short form
	Commits        []string // the iteration's commits, newest first (short form)
	Tested         bool
	TestsPassed    bool
	ConfigError    string // the test command could not run at all
	BaselineTested bool
	BaselineFailed bool
	// CutShort: the loop was stopped while the tests ran. Not tested: neither a pass (the
	// commits are not vouched for) nor a failure (nothing is reverted).
	CutShort bool
}

// Gate decides the test gate's next step. Without rollback the tests are not run at all,
// as supervision's spec says; a suite that was already failing before the iteration is
// reported, not blamed on it.
func Gate(f GateFacts) (GateStep, Decision) {
	var d Decision
	switch {
	case !f.Configured || len(f.Commits) == 0:
		return GateDone, d
	case f.CutShort:
		d.supervisionSay("Tests cut short: the loop is stopping — commit %s kept, not tested", f.Commits[0])
		d.event("TESTS", "cut short at %s: not tested, nothing reverted", f.Commits[0])
		return GateDone, d
	case !f.Tested:
		return GateRunTests, d
	case f.TestsPassed:
		d.supervisionSay("Tests passed ✅ — commit %s kept", f.Commits[0])
		d.event("TESTS", "passed at %s", f.Commits[0])
		d.tell(eventlog.Event{Kind: eventlog.GatePassed, Commit: f.Commits[0]})
		return GateDone, d
	case f.ConfigError != "":
		d.supervisionSay("test command cannot run: %s — configuration error, stopping loop", f.ConfigError)
		d.tell(eventlog.Event{Kind: eventlog.GateFailed, Commit: f.Commits[0], Reason: "the test command cannot run: " + f.ConfigError})
		d.Stop(StatusFailed, "test_command_error", f.ConfigError)
		d.Escalate = "test command cannot run: " + f.ConfigError
		return GateStop, d
	case !f.BaselineTested:
		return GateRunBaseline, d
	case f.BaselineFailed:
		d.supervisionSay("Tests failed, but they were already failing before this iteration (at %s) — commits kept", f.StartCommit)
		d.event("TESTS", "failed at %s and already at %s; nothing reverted", f.Commits[0], f.StartCommit)
		d.tell(eventlog.Event{Kind: eventlog.GateFailed, Commit: f.Commits[0],
			Reason: fmt.Sprintf("already failing before the iteration, at %s: nothing reverted", f.StartCommit)})
		return GateDone, d
	}
	for _, c := range f.Commits {
		d.supervisionSay("Tests failed ❌ — reverting commit %s", c)
	}
	d.tell(eventlog.Event{Kind: eventlog.GateFailed, Commit: f.Commits[0],
		Reason: "the tests failed: reverting " + words.Plural(len(f.Commits), "commit")})
	return GateRevert, d
}

// Reverted reports the reverts that went through. A revert that did not (a conflict, a hook,
// anything) leaves the broken commits in place, so the loop must not carry on on a red suite:
// it stops as failed and escalates.
func Reverted(reverted []string, err error) (Decision, bool) {
	var d Decision
	for _, c := range reverted {
		d.event("ROLLBACK", "reverted %s", c)
	}
	if err == nil {
		if len(reverted) > 0 {
			d.tell(eventlog.Event{Kind: eventlog.GateRolledBack, Commit: reverted[0], Detail: "reverted " + strings.Join(reverted, ", ")})
		}
		return d, false
	}
	why := words.OneLine(err.Error())
	d.supervisionSay("could not revert: %s — stopping loop", why)
	d.Stop(StatusFailed, "rollback_failed", "could not revert: "+why)
	d.Escalate = "tests failed and the revert failed: " + why
	return d, true
}

// Restarting is supervision's word when the wait after a failed agent is over and the next
// iteration (next) starts; nothing when supervision is off or no iteration is left.
func Restarting(next int, lim Limits) Decision {
	var d Decision
	if lim.Supervision.Enabled && next <= lim.MaxIterations {
		d.supervisionSay("Restarting the agent (iteration %d/%d)...", next, lim.MaxIterations)
	}
	return d
}

// Crash-loop rule: a monitor that dies again and again right after it starts is not revived
// forever.
const (
	crashLoopWindow = 2 * time.Minute
	crashLoopDeaths = 5
)

// CrashLoop reports whether deaths (times a process died, oldest first) within the window
// before now make a crash loop, and returns the ones to keep counting.
func CrashLoop(deaths []time.Time, now time.Time) (keep []time.Time, loop bool) {
	for _, t := range deaths {
		if now.Sub(t) < crashLoopWindow {
			keep = append(keep, t)
		}
	}
	return keep, len(keep) >= crashLoopDeaths
}

// Resurrection decides about a monitor that took over from a dead one: recent holds the
// earlier resurrections' times; the result is the list to keep (this one included), and
// whether the loop must be given up as failed.
//
// A loop driven by the Regent is never given up here (mayGiveUp false): its monitor dying is the
// daemon's failure, not the loop's, and the Regent's keeper stops restarting it instead (the
// agents keep working, and 'swarm regent restart' takes over).
func Resurrection(recent []time.Time, now time.Time, deadPID, iteration, count int, mayGiveUp bool) (keep []time.Time, d Decision) {
	keep, loop := CrashLoop(append(recent, now), now)
	d.supervisionSay("monitor (pid %d) died — resurrected at iteration %d (resurrection #%d)", deadPID, iteration, count)
	d.event("RESURRECT", "monitor pid %d died; resurrected at iteration %d (#%d)", deadPID, iteration, count)
	if !loop || !mayGiveUp {
		return keep, d
	}
	reason := fmt.Sprintf("monitor died %d times in two minutes", len(keep))
	d.supervisionSay("%s — stopping the loop", reason)
	d.Stop(StatusFailed, "monitor_crash_loop", "")
	// Nothing would watch the agent any more.
	d.EndAgent = true
	d.Escalate = reason
	return keep, d
}

// MonitorCrashed is the end of a loop whose monitor failed with a fault of its own: the agent
// is ended (nobody would watch it), the loop fails with the fault on record, and supervision
// escalates. Running it again would hit the same fault.
func MonitorCrashed(iteration int, fault string) Decision {
	fault = words.OneLine(fault)
	var d Decision
	d.Stop(StatusFailed, "monitor_crashed", fmt.Sprintf("iteration %d: the monitor crashed: %s", iteration, fault))
	d.EndAgent, d.Escalate = true, "monitor crashed: "+fault
	d.supervisionSay("the monitor of this loop crashed (%s) — loop failed", fault)
	return d
}

// GateOn reports whether the test gate looks at the loop's iterations: supervision is on, with
// a test command and rollback, and the iteration's start commit is known.
func GateOn(st *State, rc SupervisionConfig) bool {
	return rc.Enabled && rc.TestCommand != "" && rc.RollbackOnTestFailure && st.IterationStartCommit != ""
}
