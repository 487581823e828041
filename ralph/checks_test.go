package ralph

import (
	"reflect"
	"testing"
	"time"
)

// The completion rule, one transition per case: a claim of being done is believed only when
// every checker agrees.

var (
	pass = CheckResult{Name: "file:DONE.md", Passed: true, Message: "DONE.md exists"}
	fail = CheckResult{Name: "command:make test", Message: "exit 2: FAIL TestX"}
)

func TestAfterRunWithCheckers(t *testing.T) {
	lim := testLimits
	lim.Checks = 2
	dur := 90 * time.Second
	cases := []struct {
		name        string
		f           RunFacts
		want        want
		signals     []string
		removesDone bool
	}{
		{"a marker with every check passing completes the loop",
			RunFacts{Counters: Counters{Iteration: 3}, Ending: EndDoneMarker, Signals: []string{SignalMarker},
				Verdict: Verdict{Ran: true, Results: []CheckResult{pass, pass}}},
			want{status: StatusStopped, reason: "complete", phase: PhaseEnded, endAgent: true,
				lines:  []string{"completion verified: 2 checks passed (signals: marker), stopping loop"},
				events: []string{"[COMPLETE] iteration 3 2 checks passed (signals: marker)"}},
			[]string{SignalMarker}, false},
		{"a marker with a failing check goes on to the next iteration",
			RunFacts{Counters: Counters{Iteration: 3}, Ending: EndDoneMarker, Signals: []string{SignalMarker}, Running: true,
				Verdict: Verdict{Ran: true, Results: []CheckResult{pass, fail}}},
			want{phase: PhaseEnded,
				lines: []string{"check command:make test failed: exit 2: FAIL TestX",
					"iteration 3 completed (exit: done, duration: 1m 30s)"},
				events: []string{"[CHECK] iteration 3 command:make test failed: exit 2: FAIL TestX",
					"[END] iteration 3 exit=done duration=1m30s"}},
			nil, false},
		{"a DONE file the checks disprove is removed and does not stop the loop",
			RunFacts{Counters: Counters{Iteration: 2}, Ending: EndDoneFile, Signals: []string{SignalFile}, Running: true,
				Markers: Markers{DoneFile: true, DonePath: "D"}, Verdict: Verdict{Ran: true, Results: []CheckResult{fail}}},
			want{phase: PhaseEnded,
				lines: []string{"check command:make test failed: exit 2: FAIL TestX",
					"iteration 2 completed (exit: done file, duration: 1m 30s)"},
				events: []string{"[CHECK] iteration 2 command:make test failed: exit 2: FAIL TestX",
					"[END] iteration 2 exit=done file duration=1m30s"}},
			nil, true},
		{"a clean exit whose checks fail in the last iteration is not completion",
			RunFacts{Counters: Counters{Iteration: 10}, Ending: EndExited, ExitCode: code(0), Signals: []string{SignalExitCode}, Running: true,
				Verdict: Verdict{Ran: true, Results: []CheckResult{fail}}},
			want{phase: PhaseEnded, failures: [2]int{0, 0},
				lines: []string{"check command:make test failed: exit 2: FAIL TestX",
					"iteration 10 completed (exit: 0, duration: 1m 30s)"},
				events: []string{"[CHECK] iteration 10 command:make test failed: exit 2: FAIL TestX",
					"[END] iteration 10 exit=0 duration=1m30s"}},
			nil, false},
		{"the DONE file with passing checks completes, it is not removed",
			RunFacts{Counters: Counters{Iteration: 2}, Ending: EndDoneFile, Signals: []string{SignalFile},
				Markers: Markers{DoneFile: true, DonePath: "D"}, Verdict: Verdict{Ran: true, Results: []CheckResult{pass}}},
			want{status: StatusStopped, reason: "complete", phase: PhaseEnded, endAgent: true,
				lines:  []string{"completion verified: 1 check passed (signals: file), stopping loop"},
				events: []string{"[COMPLETE] iteration 2 1 check passed (signals: file)"}},
			[]string{SignalFile}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.f.Duration = dur
			d := AfterRun(c.f, lim)
			check(t, d, c.want)
			if !reflect.DeepEqual(d.Signals, c.signals) {
				t.Errorf("signals %v, want %v", d.Signals, c.signals)
			}
			if d.RemoveDoneFile != c.removesDone {
				t.Errorf("removes DONE: %v, want %v", d.RemoveDoneFile, c.removesDone)
			}
			if !reflect.DeepEqual(d.Verdict, c.f.Verdict.Results) {
				t.Errorf("verdict kept %v, want %v", d.Verdict, c.f.Verdict.Results)
			}
		})
	}
}

func TestMaxIterationsWithCheckersIsNotCompletion(t *testing.T) {
	lim := testLimits
	lim.Checks = 1
	d, ok := BeforeIteration(Counters{Iteration: 10}, lim, Markers{})
	check(t, d, want{status: StatusStopped, reason: "max_iterations", phase: PhaseEnded,
		lines:  []string{"max iterations reached (10) without completion: the checks never passed"},
		events: []string{"[STOP] max iterations reached (10) without completion: the checks never passed"}})
	if ok || !reflect.DeepEqual(d.Signals, []string{SignalMaxIterations}) {
		t.Errorf("another iteration allowed (%v), or signals %v", ok, d.Signals)
	}
	// The quiet last iteration ends the loop the same way, and says it was the last one.
	d = AfterRun(RunFacts{Counters: Counters{Iteration: 10}, Ending: EndInactive, Running: true, Signals: []string{SignalTimeout}}, lim)
	if d.ExitReason != "max_iterations" || !reflect.DeepEqual(d.Signals, []string{SignalTimeout, SignalMaxIterations}) {
		t.Errorf("reason %q signals %v", d.ExitReason, d.Signals)
	}
}

func TestWithoutCheckersAMarkerIsBelieved(t *testing.T) {
	// Seed 004 behaviour: the DONE file ends the loop whatever the exit, no checker involved.
	d := AfterRun(RunFacts{Counters: Counters{Iteration: 2}, Ending: EndDoneFile, Signals: []string{SignalFile},
		Markers: Markers{DoneFile: true, DonePath: "D"}}, testLimits)
	if d.ExitReason != "done_file" || d.RemoveDoneFile || !reflect.DeepEqual(d.Signals, []string{SignalFile}) {
		t.Errorf("reason %q, removes DONE %v, signals %v", d.ExitReason, d.RemoveDoneFile, d.Signals)
	}
}

func TestDoneFileBetweenIterations(t *testing.T) {
	d := DoneFileChecked(4, Verdict{Ran: true, Results: []CheckResult{pass}})
	check(t, d, want{status: StatusStopped, reason: "complete", phase: PhaseEnded,
		lines:  []string{"completion verified: 1 check passed (signals: file), stopping loop"},
		events: []string{"[COMPLETE] iteration 4 1 check passed (signals: file)"}})
	d = DoneFileChecked(4, Verdict{Ran: true, Results: []CheckResult{pass, fail}})
	check(t, d, want{lines: []string{"check command:make test failed: exit 2: FAIL TestX"},
		events: []string{"[CHECK] iteration 4 command:make test failed: exit 2: FAIL TestX"}})
	if !d.RemoveDoneFile || d.Ended {
		t.Errorf("a disproved DONE file: removed %v, ended %v", d.RemoveDoneFile, d.Ended)
	}
}

func TestSignalsOf(t *testing.T) {
	cases := []struct {
		kind   Ending
		code   *int
		marker bool
		done   bool
		want   []string
	}{
		{EndExited, code(0), false, false, []string{SignalExitCode}},
		{EndExited, code(1), false, false, []string{}},
		{EndExited, nil, true, false, []string{SignalMarker}},
		{EndExited, code(0), true, true, []string{SignalMarker, SignalExitCode, SignalFile}},
		{EndDoneMarker, code(143), true, false, []string{SignalMarker}},
		{EndDoneFile, nil, false, false, []string{SignalFile}},
		{EndInactive, code(0), false, false, []string{SignalTimeout}},
		{EndHung, nil, false, false, []string{SignalTimeout}},
		{EndContextLimit, nil, false, false, []string{}},
	}
	for _, c := range cases {
		if got := SignalsOf(c.kind, c.code, c.marker, c.done); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v code=%v marker=%v done=%v: %v, want %v", c.kind, c.code, c.marker, c.done, got, c.want)
		}
	}
	if ClaimsDone([]string{SignalTimeout}) || ClaimsDone(nil) || !ClaimsDone([]string{SignalTimeout, SignalFile}) {
		t.Error("ClaimsDone: only a marker, a clean exit or the DONE file claim completion")
	}
}

func TestVerdictNeedsEveryChecker(t *testing.T) {
	if (Verdict{Ran: true}).Passed() || (Verdict{Results: []CheckResult{pass}}).Passed() {
		t.Error("no answers, or checkers that did not run, are not a pass")
	}
	if !(Verdict{Ran: true, Results: []CheckResult{pass, pass}}).Passed() || (Verdict{Ran: true, Results: []CheckResult{pass, fail}}).Passed() {
		t.Error("all must pass")
	}
}

func TestBudget(t *testing.T) {
	lim := testLimits
	lim.MaxCost = 2
	// Over budget after an ordinary iteration: stop, escalate.
	d := AfterRun(RunFacts{Counters: Counters{Iteration: 3}, Ending: EndExited, ExitCode: code(0), Running: true, Spent: 2.5,
		Duration: time.Second}, lim)
	check(t, d, want{status: StatusStopped, reason: "budget_exceeded", phase: PhaseEnded,
		lines: []string{"iteration 3 completed (exit: 0, duration: 1s)", "cost $2.5000 passed the budget of $2.00, stopping loop"},
		events: []string{"[END] iteration 3 exit=0 duration=1s",
			"[BUDGET] iteration 3 cost $2.5000 passed the budget of $2.00, stopping loop"},
		escalate: "budget exceeded: $2.5000 of $2.00"})
	// Within budget, or no budget: nothing.
	for _, l := range []Limits{lim, testLimits} {
		spent := 1.5
		if l.MaxCost == 0 {
			spent = 100
		}
		if d := AfterRun(RunFacts{Counters: Counters{Iteration: 3}, Ending: EndExited, ExitCode: code(0), Running: true, Spent: spent}, l); d.Ended {
			t.Errorf("budget %v, spent %v: stopped as %s", l.MaxCost, spent, d.ExitReason)
		}
	}
	// A loop that completed anyway ends as complete.
	d = AfterRun(RunFacts{Counters: Counters{Iteration: 3}, Ending: EndExited, ExitCode: code(0), Spent: 9,
		Markers: Markers{DoneFile: true, DonePath: "D"}}, lim)
	if d.ExitReason != "done_file" || d.Escalate != "" {
		t.Errorf("done over budget: %q %q", d.ExitReason, d.Escalate)
	}
	if !OverBudget(2.01, lim) || OverBudget(2, lim) || OverBudget(1e9, testLimits) {
		t.Error("OverBudget")
	}
}

func TestAgentCommandGivesClaudeASession(t *testing.T) {
	cases := []struct {
		cmd  []string
		want []string
	}{
		{[]string{"claude", "-p"}, []string{"claude", "-p", "--session-id", "S"}},
		{[]string{"/opt/bin/claude"}, []string{"/opt/bin/claude", "--session-id", "S"}},
		{[]string{"claude", "--resume", "X"}, []string{"claude", "--resume", "X"}},
		{[]string{"claude", "--session-id=Y"}, []string{"claude", "--session-id=Y"}},
		{[]string{"claude", "-c"}, []string{"claude", "-c"}},
		{[]string{"codex"}, []string{"codex"}},
	}
	for _, c := range cases {
		if got := AgentCommand(c.cmd, "S"); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %q, want %q", c.cmd, got, c.want)
		}
	}
}
