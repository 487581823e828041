package driver

import (
	"time"

	"github.com/swarm-dev/swarm/ralph"
)

// The driver's features (notifications, cost, chains, agent mode, usage limits, the agents'
// own signals ...) are small types plugged into a few points of the loop's life, rather than
// methods and fields of Loop: each keeps its own state, implements only the points it needs,
// and the driver calls every feature that has a point when it gets there, in the order New
// lists them. A new feature is a new type in that list; the driver's
// own steps stay as they are.

// feature is one of the driver's features; the points it is called at are the interfaces
// below that it implements.
type feature interface {
	featureName() string
}

// onDecision features hear of every decision the loop carried out, once its state is recorded
// and its lines said (cur: the state it left; a: the agent it was about).
type onDecision interface {
	feature
	decided(cur *ralph.State, a agent, dec ralph.Decision)
}

// onRunStart features hear that a monitor takes the loop up (Run begins).
type onRunStart interface {
	feature
	runStarted()
}

// onPause features hear that the loop was paused and its monitor leaves.
type onPause interface {
	feature
	paused()
}

// withNextLoop features may have another loop follow one that ended (stopped or failed, its
// summary written and its end hooks run) in the same worker; nextLoop reports whether one
// now runs. The first that has one wins.
type withNextLoop interface {
	feature
	nextLoop() bool
}

// features are the loop's features, in the order they are called at each point.
type features []feature

func (fs features) runStarted() {
	for _, f := range fs {
		if h, ok := f.(onRunStart); ok {
			h.runStarted()
		}
	}
}

func (fs features) paused() {
	for _, f := range fs {
		if h, ok := f.(onPause); ok {
			h.paused()
		}
	}
}

func (fs features) nextLoop() bool {
	for _, f := range fs {
		if h, ok := f.(withNextLoop); ok && h.nextLoop() {
			return true
		}
	}
	return false
}

// decided calls the onDecision features.
func (fs features) decided(cur *ralph.State, a agent, dec ralph.Decision) {
	for _, f := range fs {
		if h, ok := f.(onDecision); ok {
			h.decided(cur, a, dec)
		}
	}
}

// onAgentStart features hear that a new agent is about to start in the worker's pane.
type onAgentStart interface {
	feature
	agentStarting()
}

// onIterationEnding features hear that an iteration is judged ended, before its agent is
// ended and anything about it is recorded.
type onIterationEnding interface {
	feature
	iterationEnding(st *ralph.State)
}

// withStartVeto features may keep the next agent from starting, with the decision to carry
// out instead; the first that does wins.
type withStartVeto interface {
	feature
	beforeStart(st *ralph.State) (ralph.Decision, bool)
}

// onStatusLook features look at a working agent when the watch reads the loop's files (every
// StatusPoll, or when they change), and report whether what they saw ended the iteration.
type onStatusLook interface {
	feature
	statusLook(st *ralph.State, a agent, w *screenWatch) bool
}

// onScreenLook features read each screen the watch captures, and report whether what they
// saw ended the iteration.
type onScreenLook interface {
	feature
	screenLook(st *ralph.State, a agent, lines []string) bool
}

// onWatch features hear that the driver begins watching a working agent (now).
type onWatch interface {
	feature
	watchStarted(st *ralph.State, now time.Time)
}

// onAgentLook features take a look of their own at a working agent at each of the watch's
// looks, and report whether what they saw ended the iteration.
type onAgentLook interface {
	feature
	agentLook(st *ralph.State, a agent, w *screenWatch) bool
}

// withLookDue features want a look at a time of their own (ok: they want one at all); the
// watch wakes for it.
type withLookDue interface {
	feature
	lookDue(st *ralph.State) (at time.Time, ok bool)
}

// iterationEnd is an ending iteration as the features see it: its record, which they fill
// in, and what they make of it for the verdict.
type iterationEnd struct {
	st    *ralph.State
	kind  ralph.Ending
	rec   *ralph.IterationRecord
	spent float64           // what the loop has cost, this iteration included
	limit *ralph.LimitFacts // the usage limit that ended it
}

// onIterationEnd features hear of an iteration that ended, once its agent is ended and its
// commits are known, before the verdict.
type onIterationEnd interface {
	feature
	iterationEnded(e *iterationEnd)
}

func (fs features) agentStarting() {
	for _, f := range fs {
		if h, ok := f.(onAgentStart); ok {
			h.agentStarting()
		}
	}
}

func (fs features) iterationEnding(st *ralph.State) {
	for _, f := range fs {
		if h, ok := f.(onIterationEnding); ok {
			h.iterationEnding(st)
		}
	}
}

func (fs features) beforeStart(st *ralph.State) (ralph.Decision, bool) {
	for _, f := range fs {
		if h, ok := f.(withStartVeto); ok {
			if dec, veto := h.beforeStart(st); veto {
				return dec, true
			}
		}
	}
	return ralph.Decision{}, false
}

func (fs features) statusLook(st *ralph.State, a agent, w *screenWatch) bool {
	for _, f := range fs {
		if h, ok := f.(onStatusLook); ok && h.statusLook(st, a, w) {
			return true
		}
	}
	return false
}

func (fs features) screenLook(st *ralph.State, a agent, lines []string) bool {
	for _, f := range fs {
		if h, ok := f.(onScreenLook); ok && h.screenLook(st, a, lines) {
			return true
		}
	}
	return false
}

func (fs features) watchStarted(st *ralph.State, now time.Time) {
	for _, f := range fs {
		if h, ok := f.(onWatch); ok {
			h.watchStarted(st, now)
		}
	}
}

func (fs features) agentLook(st *ralph.State, a agent, w *screenWatch) bool {
	for _, f := range fs {
		if h, ok := f.(onAgentLook); ok && h.agentLook(st, a, w) {
			return true
		}
	}
	return false
}

// lookDue adds the times the features want a look at to due.
func (fs features) lookDue(st *ralph.State, due []time.Time) []time.Time {
	for _, f := range fs {
		if h, ok := f.(withLookDue); ok {
			if at, want := h.lookDue(st); want {
				due = append(due, at)
			}
		}
	}
	return due
}

func (fs features) iterationEnded(e *iterationEnd) {
	for _, f := range fs {
		if h, ok := f.(onIterationEnd); ok {
			h.iterationEnded(e)
		}
	}
}

// endStepRun is a step before the verdict on an ended iteration (NextEndStep) as the features
// carrying it out see it: the facts the policy goes by, which they bring up to date.
type endStepRun struct {
	st      *ralph.State
	facts   *ralph.EndFacts
	code    *int          // the agent's exit code, nil when it did not exit by itself
	verdict ralph.Verdict // the checkers' answers, once they ran
	stop    bool          // the loop must stop: no verdict follows
}

// withEndStep features carry out the end steps they know (reporting that they did).
type withEndStep interface {
	feature
	endStep(step ralph.EndStep, r *endStepRun) bool
}

// onStopFiles features look at the stop files found between iterations before the loop
// decides on them: they may change what counts (m), and report whether what they did ended
// the loop.
type onStopFiles interface {
	feature
	stopFiles(st *ralph.State, m *ralph.Markers) bool
}

// onIterationRecorded features hear of an ended iteration once its line is in
// iterations.jsonl.
type onIterationRecorded interface {
	feature
	iterationRecorded(rec ralph.IterationRecord)
}

// onLoopEnd features act once on a loop that ended (stopped or failed), once its summary is
// written and before it is marked finalized; unfinished: the loop's context cut them short,
// and the loop is left for its next driver to finish.
type onLoopEnd interface {
	feature
	loopEnded(st *ralph.State) (unfinished bool)
}

// endStep has the first feature that knows the step carry it out; false: none knew it.
func (fs features) endStep(step ralph.EndStep, r *endStepRun) bool {
	for _, f := range fs {
		if h, ok := f.(withEndStep); ok && h.endStep(step, r) {
			return true
		}
	}
	return false
}

func (fs features) stopFiles(st *ralph.State, m *ralph.Markers) bool {
	for _, f := range fs {
		if h, ok := f.(onStopFiles); ok && h.stopFiles(st, m) {
			return true
		}
	}
	return false
}

func (fs features) iterationRecorded(rec ralph.IterationRecord) {
	for _, f := range fs {
		if h, ok := f.(onIterationRecorded); ok {
			h.iterationRecorded(rec)
		}
	}
}

// loopEnded calls the onLoopEnd features until one leaves the loop unfinished.
func (fs features) loopEnded(st *ralph.State) (unfinished bool) {
	for _, f := range fs {
		if h, ok := f.(onLoopEnd); ok && h.loopEnded(st) {
			return true
		}
	}
	return false
}
