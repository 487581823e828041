package ralph

import (
	"slices"
	"strings"
)

// The end of an iteration, in the one order it always takes:
//
//	done claim → test gate → rollback → checks → verdict
//
// The claim (a done marker, the DONE file, a clean exit) is read first but judged last. The
// test gate looks at every iteration that made commits, whatever it claims, and reverts the
// ones that break the suite. Work that was reverted cannot complete the loop, so the checkers
// are not asked about it (they would only see the tree as it was before). Otherwise the
// checkers, when there are any, judge the claim; without them a done marker or the DONE file
// is believed. NextEndStep says what the driver must find out next; AfterRun gives the
// verdict once it knows.

// EndStep is the next thing the driver does at an iteration's end.
type EndStep int

// The steps of an iteration's end.
const (
	EndDecide EndStep = iota // everything is known: AfterRun gives the verdict
	EndGate                  // run the test gate on the iteration's commits (it may revert them)
	EndCheck                 // run the checkers on the iteration's claim
)

func (s EndStep) String() string { return [...]string{"decide", "gate", "check"}[s] }

// EndFacts is what is known so far about an ended iteration.
type EndFacts struct {
	Signals  []string // what the iteration offered as signs of being done (Signal*)
	Gate     bool     // the test gate is on: a test command, rollback on, a start commit known
	Commits  bool     // the iteration made commits
	Gated    bool     // the test gate has run
	Reverted bool     // and it reverted the iteration's commits
	Checks   int      // completion checkers configured
	Checked  bool     // the checkers have run
	// Untested: the loop was stopped while the test gate's tests or the checkers ran. What
	// they would have said is not known, so nothing more is asked and nothing is judged.
	Untested bool
}

// NextEndStep decides what the driver must do next at an iteration's end.
func NextEndStep(f EndFacts) EndStep {
	switch {
	case f.Untested:
		return EndDecide
	case f.Gate && f.Commits && !f.Gated:
		return EndGate
	case f.Checks > 0 && ClaimsDone(f.Signals) && !f.Reverted && !f.Checked:
		return EndCheck
	}
	return EndDecide
}

// claimed lists what an iteration offered as a claim of being done: with checkers a clean
// exit counts too (it is what they are asked about), without them only a marker or the DONE
// file end a loop.
func claimed(signals []string, lim Limits) []string {
	var out []string
	for _, s := range signals {
		if s == SignalMarker || s == SignalFile || s == SignalExitCode && lim.Checks > 0 {
			out = append(out, s)
		}
	}
	return out
}

// believedMarker reports whether a done marker ends the loop as it stands: no checkers doubt
// it, and its work was not reverted.
func believedMarker(f RunFacts, lim Limits) bool {
	return lim.Checks == 0 && !f.Reverted && slices.Contains(f.Signals, SignalMarker)
}

// voided is the verdict on an iteration that claimed to be done but whose commits the test
// gate reverted: the claim does not count. Its DONE file goes, and the loop carries on as
// after any other iteration (up to its limit).
func voided(f RunFacts, lim Limits, claim []string) Decision {
	removeDone := f.Markers.DoneFile
	f.Markers.DoneFile = false
	var v Decision
	what := strings.Join(claim, ", ")
	v.Say("iteration %d claimed to be done (%s), but its commits were reverted: not done", f.Iteration, what)
	v.event("VOID", "iteration %d claim (%s) void: its commits were reverted", f.Iteration, what)
	d := afterRun(f, lim)
	d.Lines = append(v.Lines, d.Lines...)
	d.Events = append(v.Events, d.Events...)
	d.RemoveDoneFile = removeDone
	return d
}

// untested is the verdict on an iteration whose tests or checkers were cut short because the
// loop is being stopped. An unfinished test run is neither a pass nor a failure: the commits
// stay (no rollback), the claim is neither believed nor refuted (a DONE file stays, to be
// verified on the next look), and the failure counters are left as they were. The iteration
// is over; the stop decides what comes next.
func untested(f RunFacts) Decision {
	d := Decision{Phase: PhaseEnded}
	d.Say("iteration %d was not verified: the loop is stopping while its tests or checks ran", f.Iteration)
	d.event("UNTESTED", "iteration %d: tests or checks cut short by a stop; nothing kept or reverted on their word", f.Iteration)
	return d
}
