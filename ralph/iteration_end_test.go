package ralph

import (
	"slices"
	"strings"
	"testing"
)

// The end of an iteration, one case per combination of what it claimed (a done marker, the
// DONE file, a clean exit, a failure), whether it made commits, whether the test gate is on
// (and what the tests say), and whether checkers are configured (and what they say): the
// steps the driver is told to take, in order, and the verdict.

// endClaim is what an iteration offered at its end.
type endClaim struct {
	ending   Ending
	code     *int
	signals  []string
	doneFile bool
}

var (
	byMarker   = endClaim{ending: EndDoneMarker, signals: []string{SignalMarker}}
	byDoneFile = endClaim{ending: EndDoneFile, signals: []string{SignalFile}, doneFile: true}
	byExit0    = endClaim{ending: EndExited, code: code(0), signals: []string{SignalExitCode}}
	byExit1    = endClaim{ending: EndExited, code: code(1), signals: []string{}}
)

// The test gate as a case sees it: off, or on with the suite red (the commits are reverted)
// or green after the iteration.
const (
	gateOff = iota
	gateRed
	gateGreen
)

// The checkers: none configured, all passing, or one failing.
const (
	noChecks = iota
	checksPass
	checksFail
)

type endCase struct {
	claim   endClaim
	commits bool
	gate    int
	checks  int
	steps   string // the steps taken, in order, comma-separated
	reason  string // the loop's exit reason; "" when the next iteration starts
	void    bool   // the claim was voided by the rollback
}

// runEnd drives the policy the way the driver does, with the gate's and checkers' answers
// given by the case.
func runEnd(t *testing.T, c endCase) (steps []string, d Decision) {
	t.Helper()
	lim := testLimits
	if c.checks != noChecks {
		lim.Checks = 1
	}
	e := EndFacts{Signals: c.claim.signals, Gate: c.gate != gateOff, Commits: c.commits, Checks: lim.Checks}
	var v Verdict
	for s := NextEndStep(e); s != EndDecide; s = NextEndStep(e) {
		if len(steps) > 3 {
			t.Fatalf("no end to the steps: %v", steps)
		}
		steps = append(steps, s.String())
		switch s {
		case EndGate:
			e.Gated, e.Reverted = true, c.gate == gateRed
		case EndCheck:
			e.Checked = true
			v = Verdict{Ran: true, Results: []CheckResult{pass}}
			if c.checks == checksFail {
				v.Results = []CheckResult{fail}
			}
		}
	}
	f := RunFacts{Counters: Counters{Iteration: 2}, Ending: c.claim.ending, ExitCode: c.claim.code,
		Signals: c.claim.signals, Markers: Markers{DoneFile: c.claim.doneFile, DonePath: "D"}, Running: true,
		Verdict: v, Reverted: e.Reverted}
	return steps, AfterRun(f, lim)
}

// endCases: every combination, and what comes of it.
var endCases = map[string]endCase{
	// A done marker: believed without checkers, judged by them when there are some,
	// void when its commits were reverted.
	"marker":                             {byMarker, false, gateOff, noChecks, "", "done_pattern", false},
	"marker, checks":                     {byMarker, false, gateOff, checksPass, "check", "complete", false},
	"marker, gate, no commits":           {byMarker, false, gateRed, noChecks, "", "done_pattern", false},
	"marker, gate, no commits, checks":   {byMarker, false, gateRed, checksPass, "check", "complete", false},
	"marker, commits":                    {byMarker, true, gateOff, noChecks, "", "done_pattern", false},
	"marker, commits, checks":            {byMarker, true, gateOff, checksPass, "check", "complete", false},
	"marker, commits, red gate":          {byMarker, true, gateRed, noChecks, "gate", "", true},
	"marker, commits, red gate, checks":  {byMarker, true, gateRed, checksPass, "gate", "", true},
	"marker, commits, green gate":        {byMarker, true, gateGreen, noChecks, "gate", "done_pattern", false},
	"marker, commits, green gate, check": {byMarker, true, gateGreen, checksPass, "gate,check", "complete", false},
	"marker, failing checks":             {byMarker, false, gateOff, checksFail, "check", "", false},
	// The DONE file: the same, and a voided one is taken away.
	"DONE":                             {byDoneFile, false, gateOff, noChecks, "", "done_file", false},
	"DONE, checks":                     {byDoneFile, false, gateOff, checksPass, "check", "complete", false},
	"DONE, gate, no commits":           {byDoneFile, false, gateRed, noChecks, "", "done_file", false},
	"DONE, gate, no commits, checks":   {byDoneFile, false, gateRed, checksPass, "check", "complete", false},
	"DONE, commits":                    {byDoneFile, true, gateOff, noChecks, "", "done_file", false},
	"DONE, commits, checks":            {byDoneFile, true, gateOff, checksPass, "check", "complete", false},
	"DONE, commits, red gate":          {byDoneFile, true, gateRed, noChecks, "gate", "", true},
	"DONE, commits, red gate, checks":  {byDoneFile, true, gateRed, checksPass, "gate", "", true},
	"DONE, commits, green gate":        {byDoneFile, true, gateGreen, noChecks, "gate", "done_file", false},
	"DONE, commits, green gate, check": {byDoneFile, true, gateGreen, checksPass, "gate,check", "complete", false},
	"DONE, failing checks":             {byDoneFile, false, gateOff, checksFail, "check", "", false},
	// A clean exit claims nothing without checkers; with them it is a claim to judge.
	"exit 0":                            {byExit0, false, gateOff, noChecks, "", "", false},
	"exit 0, checks":                    {byExit0, false, gateOff, checksPass, "check", "complete", false},
	"exit 0, gate, no commits":          {byExit0, false, gateRed, noChecks, "", "", false},
	"exit 0, gate, no commits, checks":  {byExit0, false, gateRed, checksPass, "check", "complete", false},
	"exit 0, commits":                   {byExit0, true, gateOff, noChecks, "", "", false},
	"exit 0, commits, checks":           {byExit0, true, gateOff, checksPass, "check", "complete", false},
	"exit 0, commits, red gate":         {byExit0, true, gateRed, noChecks, "gate", "", false},
	"exit 0, commits, red gate, checks": {byExit0, true, gateRed, checksPass, "gate", "", true},
	// A failed exit claims nothing: the gate still looks at its commits.
	"exit 1":                            {byExit1, false, gateOff, noChecks, "", "", false},
	"exit 1, checks":                    {byExit1, false, gateOff, checksPass, "", "", false},
	"exit 1, gate, no commits":          {byExit1, false, gateRed, noChecks, "", "", false},
	"exit 1, gate, no commits, checks":  {byExit1, false, gateRed, checksPass, "", "", false},
	"exit 1, commits":                   {byExit1, true, gateOff, noChecks, "", "", false},
	"exit 1, commits, checks":           {byExit1, true, gateOff, checksPass, "", "", false},
	"exit 1, commits, red gate":         {byExit1, true, gateRed, noChecks, "gate", "", false},
	"exit 1, commits, red gate, checks": {byExit1, true, gateRed, checksPass, "gate", "", false},
}

func TestEndOfIteration(t *testing.T) {
	for name, c := range endCases {
		t.Run(name, func(t *testing.T) {
			steps, d := runEnd(t, c)
			if got := strings.Join(steps, ","); got != c.steps {
				t.Errorf("steps %q, want %q", got, c.steps)
			}
			if d.ExitReason != c.reason || d.Ended != (c.reason != "") {
				t.Errorf("exit reason %q (ended %v), want %q", d.ExitReason, d.Ended, c.reason)
			}
			voided := slices.ContainsFunc(d.Events, func(e Event) bool { return e.Kind == "VOID" })
			if voided != c.void {
				t.Errorf("claim voided: %v, want %v (events %v)", voided, c.void, eventTexts(d))
			}
			// A DONE file whose claim did not hold goes, so that it cannot end the loop later.
			wantRemoved := c.claim.doneFile && c.reason == ""
			if d.RemoveDoneFile != wantRemoved {
				t.Errorf("DONE file removed: %v, want %v", d.RemoveDoneFile, wantRemoved)
			}
		})
	}
}

// What a voided claim says, and that the loop carries on from it as from any iteration.
func TestAVoidedClaimSaysSo(t *testing.T) {
	_, d := runEnd(t, endCase{claim: byMarker, commits: true, gate: gateRed})
	check(t, d, want{phase: PhaseEnded, failures: [2]int{0, 0},
		lines: []string{"iteration 2 claimed to be done (marker), but its commits were reverted: not done",
			"iteration 2 completed (exit: done, duration: 0s)"},
		events: []string{"[VOID] iteration 2 claim (marker) void: its commits were reverted",
			"[END] iteration 2 exit=done duration=0s"}})
}
