package ralph

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state/eventlog"
)

// The state directory's event log (package state/eventlog) hears of a loop where its changes
// are recorded. Whatever changes the loop's state writes it under the loop lock (Dir.change,
// Dir.transition), so what changed from the state before to the state after is told there,
// once per change however many look: the loop paused, resumed, parked on a usage limit or
// ended; its agent came to need a person, or no longer does; its cost crossed its budget
// (ChangeEvents). What only a decision knows (an iteration's verdict, the test gate's, the
// checkers') the decision carries (Decision.Tell), told as it is recorded.

// Tell writes events to the event log of the state directory the loop belongs to, as its
// worker's; a Dir without one (Root "") tells nothing. Writing one is a lock and a short
// append; the error is the caller's to say or not, never a reason to hold a decision up.
func (d Dir) Tell(events ...eventlog.Event) error {
	if d.Root == "" {
		return nil
	}
	log := eventlog.Log{Root: d.Root}
	var first error
	for _, e := range events {
		if e.Worker == "" {
			e.Worker = filepath.Base(d.Path)
		}
		if _, err := log.Append(e); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// tellChange tells a recorded change of the loop's state from was to now, by dec (empty for
// a change that is no decision): the decision's own events, then what changed. A failure is
// not the change's: the state holds it whatever the event log says.
func (d Dir) tellChange(was, now *State, dec Decision) {
	events := append(append([]eventlog.Event{}, dec.Tell...), ChangeEvents(was, now, dec)...)
	for i := range events {
		if events[i].Iteration == 0 {
			events[i].Iteration = now.CurrentIteration
		}
	}
	if len(events) > 0 {
		_ = d.Tell(events...)
	}
}

// ChangeEvents are the events a change of the loop's state from was to now tells, by dec
// (empty for a change that is no decision): the cost crossing the budget, the loop's status
// changing, a person becoming needed or no longer needed.
func ChangeEvents(was, now *State, dec Decision) []eventlog.Event {
	var out []eventlog.Event
	if over(now) && !over(was) {
		spent := now.CostUSD
		out = append(out, eventlog.Event{Kind: eventlog.CostBudget, CostUSD: &spent,
			Detail: fmt.Sprintf("$%.4f of a budget of $%.2f", now.CostUSD, now.MaxCost)})
	}
	if e, ok := statusEvent(was, now, dec); ok {
		out = append(out, e)
	}
	if e, ok := needEvent(was, now, dec); ok {
		out = append(out, e)
	}
	return out
}

// over reports whether the loop's cost passed its budget.
func over(st *State) bool { return OverBudget(st.CostUSD, Limits{MaxCost: st.MaxCost}) }

// statusEvent is the event of the loop's status changing from was to now.
func statusEvent(was, now *State, dec Decision) (eventlog.Event, bool) {
	if was.Status == now.Status || was.Status == "" {
		return eventlog.Event{}, false
	}
	switch now.Status {
	case StatusPaused:
		return eventlog.Event{Kind: eventlog.LoopPaused, Reason: now.ExitReason}, true
	case StatusWaiting:
		return eventlog.Event{Kind: eventlog.LoopParked, Reason: now.WaitingFor, Detail: "until " + now.WaitingUntil}, true
	case StatusStopped, StatusFailed:
		kind := eventlog.LoopStopped
		switch word, _, _ := EndWords(now.Status, now.ExitReason); word {
		case EndDone:
			kind = eventlog.LoopDone
		case EndFailed:
			kind = eventlog.LoopFailed
		}
		return eventlog.Event{Kind: kind, Reason: now.ExitReason}, true
	case StatusRunning:
		switch {
		case freshLoop(was, now):
			// A chain's next step or an agent's next stage: its first iteration's start says so.
			return eventlog.Event{}, false
		case was.Status == StatusWaiting && !dec.Unpause:
			return eventlog.Event{Kind: eventlog.LoopUnparked}, true
		}
		return eventlog.Event{Kind: eventlog.LoopResumed, Reason: string(was.Status)}, true
	}
	return eventlog.Event{}, false
}

// freshLoop reports whether now is the next loop in the same worker (a chain's step, an
// agent's stage: each a run of its own) rather than was going on.
func freshLoop(was, now *State) bool { return now.RunID != was.RunID }

// needEvent is the event of the loop coming to need a person, or no longer needing one: once
// per need, however often its agent is seen waiting. By says what ended the need: a person's
// answer through swarm (where it was given: "cli" or "web"; Detail then starts with the
// answer), the agent ("agent": it went on, someone having answered it on its screen, or its
// iteration ended), or the loop ("swarm": it paused, ended or moved on to its next loop).
func needEvent(was, now *State, dec Decision) (eventlog.Event, bool) {
	switch {
	case was.NeedsPersonSince == "" && now.NeedsPersonSince != "":
		n, _ := now.need()
		return eventlog.Event{Kind: eventlog.PersonNeeded, What: n.Kind, Detail: n.What}, true
	case was.NeedsPersonSince != "" && now.NeedsPersonSince == "":
		n, _ := was.need()
		by := "agent"
		switch {
		case now.answered != nil:
			return eventlog.Event{Kind: eventlog.PersonAnswered, What: n.Kind, Detail: now.answered.answer + ": " + n.What,
				By: now.answered.by}, true
		case dec.Ended || dec.PausedNow || freshLoop(was, now):
			by = "swarm"
		}
		return eventlog.Event{Kind: eventlog.PersonAnswered, What: n.Kind, Detail: n.What, By: by}, true
	}
	return eventlog.Event{}, false
}

// IterationEnded is the event of an iteration's end, from its record and the decision that
// ended it (the verdict, or the stop that came while it worked): How it ended in one word,
// Reason and Detail saying more.
func IterationEnded(r IterationRecord, dec Decision) eventlog.Event {
	e := eventlog.Event{Kind: eventlog.IterationEnded, Iteration: r.Iteration}
	e.How, e.Reason = iterationHow(r, dec)
	if e.How == HowFailed && dec.Failed != nil {
		e.Detail = dec.Failed.LastLine()
	}
	return e
}

// How an iteration ended, in the word IterationEnded gives it.
const (
	HowDone     = "done"      // its work verified or believed done: the loop ended done
	HowFailed   = "failed"    // counted as a failure (an exit other than 0, a fatal start error)
	HowTimeout  = "timeout"   // ended for time: its time limit, or never ready for its prompt
	HowHang     = "hang"      // ended as hung: no progress on screen
	HowAPIError = "api_error" // its agent gave up on its API
	HowLimit    = "limit"     // its agent's usage limit was spent
	HowKilled   = "killed"    // the loop was killed while it worked
	HowStopped  = "stopped"   // the loop was stopped while it worked, or its budget spent
	HowEnded    = "ended"     // it ended otherwise: its turn over, quiet, context full, a claim refuted
)

// iterationHow is how an iteration ended and what says more.
func iterationHow(r IterationRecord, dec Decision) (how, reason string) {
	switch {
	case r.EndReason == "stopped" && dec.ExitReason == "killed":
		return HowKilled, ""
	case r.EndReason == "stopped":
		return HowStopped, dec.ExitReason
	case dec.Ended && finishedReasons[dec.ExitReason]:
		return HowDone, dec.ExitReason
	}
	switch r.EndReason {
	case "hang":
		return HowHang, ""
	case "iteration_timeout", "ready_timeout":
		return HowTimeout, r.EndReason
	case "api_error":
		return HowAPIError, r.Error
	case "usage_limit":
		return HowLimit, r.Error
	case "budget_exceeded":
		return HowStopped, r.EndReason
	}
	if dec.Failed != nil {
		if isNumber(dec.Failed.Exit) {
			return HowFailed, "exit " + dec.Failed.Exit
		}
		return HowFailed, dec.Failed.Exit
	}
	if r.EndReason == "exit" && r.ExitCode != nil {
		return HowEnded, fmt.Sprintf("exit %d", *r.ExitCode)
	}
	return HowEnded, r.EndReason
}

func isNumber(s string) bool {
	return s != "" && strings.Trim(s, "-0123456789") == ""
}

// checksFailed is the event of checkers that disproved iteration n's claim: the first that
// said no, and how many did.
func checksFailed(n int, v []CheckResult) eventlog.Event {
	failed, first := 0, ""
	for _, r := range v {
		if !r.Passed {
			if failed == 0 {
				first = strings.TrimSuffix(r.Name+": "+words.OneLine(r.Message), ": ")
			}
			failed++
		}
	}
	return eventlog.Event{Kind: eventlog.ChecksFailed, Iteration: n, Reason: first,
		Detail: fmt.Sprintf("%d of %s failed", failed, words.Plural(len(v), "check"))}
}
