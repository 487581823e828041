package ralph

import (
	"fmt"
	"time"

	"github.com/swarm-dev/swarm/state/eventlog"
)

// The loop's policy: every decision about what happens next is a function of facts the driver
// observed and the loop's state, with no tmux, processes, files or clock inside. The driver
// (package ralph/driver) gathers the facts, asks here, and carries the decision out.

// Status is where a loop stands as a whole.
type Status string

// Loop statuses, as stored in state.json and shown by `swarm ralph status`.
const (
	StatusRunning Status = "running"
	StatusPaused  Status = "paused"
	StatusStopped Status = "stopped"
	StatusFailed  Status = "failed"
)

func (s Status) String() string { return string(s) }

// Phase is where the current iteration is, so a monitor that restarts picks it up where the
// last one left it instead of counting it twice.
type Phase string

// Iteration phases.
const (
	PhaseStarting   Phase = "starting"   // agent started, prompt not delivered yet
	PhaseDelivering Phase = "delivering" // about to paste the prompt: a new monitor delivers it afresh
	PhaseSubmitting Phase = "submitting" // the prompt was pasted, Enter pending: never paste it again
	PhaseWorking    Phase = "working"    // prompt delivered, agent being watched
	PhaseEnded      Phase = "ended"      // iteration evaluated; next one not started
	PhaseBackoff    Phase = "backoff"    // waiting before retrying after a failure
)

func (p Phase) String() string { return string(p) }

// Underway reports whether an agent of the iteration may still be at work: a loop paused in
// this phase still needs its driver until the iteration ends.
func (p Phase) Underway() bool {
	return p == PhaseStarting || p == PhaseDelivering || p == PhaseSubmitting || p == PhaseWorking
}

// Ending is how an iteration ended.
type Ending int

// The ways an iteration ends.
const (
	EndExited           Ending = iota // the agent's process ended by itself
	EndInactive                       // the screen stayed unchanged for the inactivity timeout
	EndHung                           // no real progress on screen for the hang timeout
	EndIterationTimeout               // the iteration ran longer than allowed
	EndReadyTimeout                   // the agent never showed its input prompt
	EndDoneFile                       // the DONE file appeared while it worked
	EndContextLimit                   // its context filled past --max-context + 15 %
	EndCompaction                     // it began compacting its conversation
	EndDoneMarker                     // it printed a completion marker (and checkers verify it)
	EndBudget                         // the loop's cost passed --max-cost while it worked
	EndAPIError                       // it gave up on its API and sits at the error
	EndUsageLimit                     // its plan's usage limit is spent
	EndTurnEnded                      // the agent said its turn ended, without the done marker
)

func (e Ending) String() string {
	return [...]string{"exited", "inactive", "hung", "iteration timeout", "ready timeout", "done file",
		"context limit", "compaction", "done marker", "budget", "API error", "usage limit", "turn ended"}[e]
}

// Reason is how iterations.jsonl names the ending.
func (e Ending) Reason() string {
	return [...]string{"exit", "inactivity", "hang", "iteration_timeout", "ready_timeout", "done_file",
		"context_limit", "compaction", "done", "budget_exceeded", "api_error", "usage_limit", "turn_end"}[e]
}

// timedOut reports whether swarm ended the agent for time.
func (e Ending) timedOut() bool {
	return e == EndInactive || e == EndHung || e == EndIterationTimeout || e == EndReadyTimeout
}

// Line is one thing the loop says: a "[ralph] name: ..." line, or a supervision line
// (shown as "🛡️  Regent: ...").
type Line struct {
	Supervision bool
	Text        string
}

// Event is one iterations.log entry: `<time> [KIND] text`.
type Event struct {
	Kind string
	Text string
}

// Decision is what the policy wants done. The driver applies the state changes and the
// events together (Dir.Apply), prints the lines, then performs the effects.
type Decision struct {
	Status     Status // "" keeps the status
	Phase      Phase  // "" keeps the phase
	ExitReason string // set with a final status
	Ended      bool   // the loop is over: record when

	ClearExitReason bool // a resumed loop has no exit reason
	PausedNow       bool // a pause begins: its time is not running time
	Unpause         bool // the pause (if any) ends
	MaxIterations   int  // > 0: the loop's new iteration limit

	// Failure counters after this decision, and the exit code to record.
	SetCounters         bool
	ConsecutiveFailures int
	TotalFailures       int
	LastExitCode        *int

	Backoff  time.Duration // > 0: wait this long before the next iteration
	Lines    []Line
	Events   []Event
	Escalate string   // non-empty: report the loop as given up, for this reason
	Failed   *Failure // the iteration failed: kept as the loop's last failure (failure.go)
	EndAgent bool     // end the agent now (a finished interactive agent would idle forever)

	// RemoveDoneFile: the DONE file's claim was disproved by the checkers, so it must not end
	// the loop before the next iteration.
	RemoveDoneFile bool
	Verdict        []CheckResult // the checkers' answers, to keep as the last ones
	Signals        []string      // the signals of the iteration that ended the loop
	WaitUntil      time.Time     // a usage limit: when to try again
	WaitFor        string        // and what the agent said about it
	WaitReset      time.Time     // when the limit resets; zero when not known

	Context    *ContextReading    // what was last seen of the agent's context use
	Stagnation *StagnationReading // the stagnation breaker's count after this iteration

	// Tell are the decision's own events for the state directory's event log (an iteration's
	// verdict, the test gate's, the checkers'), told when it is recorded; what it changes of
	// the loop's state (its status, a person needed) is told besides (see ChangeEvents).
	Tell []eventlog.Event
}

func (d *Decision) Say(format string, args ...any) {
	d.Lines = append(d.Lines, Line{Text: fmt.Sprintf(format, args...)})
}

func (d *Decision) supervisionSay(format string, args ...any) {
	d.Lines = append(d.Lines, Line{Supervision: true, Text: fmt.Sprintf(format, args...)})
}

// tell adds e to the decision's events for the state directory's event log.
func (d *Decision) tell(e eventlog.Event) { d.Tell = append(d.Tell, e) }

func (d *Decision) event(kind, format string, args ...any) {
	d.Events = append(d.Events, Event{Kind: kind, Text: fmt.Sprintf(format, args...)})
}

// stop ends the loop with status and reason; logLine, when given, goes to iterations.log as
// STOP (or FAIL for a failed loop).
func (d *Decision) Stop(status Status, reason, logLine string) {
	d.Status, d.ExitReason, d.Phase, d.Ended = status, reason, PhaseEnded, true
	if logLine != "" {
		kind := "STOP"
		if status == StatusFailed {
			kind = "FAIL"
		}
		d.event(kind, "%s", logLine)
	}
}

// Stopping reports whether the decision ends the loop.
func (d Decision) Stopping() bool { return d.Ended }

// Markers are the stop files the agent (or a user) can create, as the driver found them.
type Markers struct {
	DoneFile    bool   // DONE exists: the whole task is complete
	DoneFileErr string // DONE cannot be checked, or is a directory
	DonePath    string // where DONE is, for the log
	WaitFile    bool   // WAIT_WITHOUT_RESTART exists
}

// Limits are the loop's settings that decisions depend on.
type Limits struct {
	MaxIterations     int
	InactivitySeconds int           // as configured; 0 means the default of 60
	MaxContext        int           // percent of the context window; 0: not watched
	StagnationLimit   int           // unchanged iterations in a row that stop the loop; 0: off
	Checks            int           // completion checkers configured; 0: a claim of being done is believed
	MaxCost           float64       // USD the loop may spend; 0: no budget
	LimitWait         time.Duration // wait after a usage limit whose reset is not known; 0: the default
	LimitMargin       time.Duration // added to a usage limit's reset time; 0: the default
	Supervision       SupervisionConfig
}

// EffectiveSupervision fills in what an older or partial configuration leaves out.
func EffectiveSupervision(rc *SupervisionConfig) SupervisionConfig {
	if rc == nil {
		return DefaultSupervision()
	}
	c := *rc
	if c.MaxFailures <= 0 {
		c.MaxFailures = MaxConsecutiveFailures
	}
	return c
}

func (l Limits) inactivity() int {
	if l.InactivitySeconds <= 0 {
		return 60
	}
	return l.InactivitySeconds
}
