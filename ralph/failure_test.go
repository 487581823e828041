package ralph

import (
	"reflect"
	"testing"
	"time"
)

// What a failed iteration keeps of the agent's screen: one transition per test.

var refusal = []string{"--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons"}

func TestFailedIterationKeepsItsLines(t *testing.T) {
	d := AfterRun(RunFacts{Counters: Counters{Iteration: 2}, Ending: EndExited, ExitCode: code(1), LastLines: refusal}, testLimits)
	want := &Failure{Iteration: 2, Exit: "1", Lines: refusal}
	if !reflect.DeepEqual(d.Failed, want) {
		t.Errorf("failed %+v, want %+v", d.Failed, want)
	}
	if got, want := eventTexts(d), []string{"[FAIL] iteration 2 exit=1 duration=0s", "[SCREEN] iteration 2: " + refusal[0]}; !reflect.DeepEqual(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}

func TestFailureKeepsTheLastFewLines(t *testing.T) {
	lines := []string{"1", "2", "3", "4", "5", "6", "7"}
	d := AfterRun(RunFacts{Counters: Counters{Iteration: 1}, Ending: EndHung, LastLines: lines}, testLimits)
	if d.Failed == nil || !reflect.DeepEqual(d.Failed.Lines, lines[2:]) || d.Failed.Exit != "hung" {
		t.Errorf("failed %+v, want the last %d lines, exit hung", d.Failed, FailureLines)
	}
}

func TestFailureThatEndsTheLoopKeepsItsLines(t *testing.T) {
	d := AfterRun(RunFacts{Counters: Counters{Iteration: 6, ConsecutiveFailures: 4}, Ending: EndExited, ExitCode: code(1), LastLines: refusal}, testLimits)
	if d.Status != StatusFailed || d.Failed == nil || d.Failed.LastLine() != refusal[0] {
		t.Errorf("decision %+v, want the loop failed with the refusal kept", d)
	}
}

func TestFatalStartKeepsItsLines(t *testing.T) {
	d := AfterRun(RunFacts{Counters: Counters{Iteration: 1}, Ending: EndExited, ExitCode: code(127), FatalReason: "claude: not found",
		LastLines: []string{"sh: claude: not found"}}, testLimits)
	if d.ExitReason != "fatal_error" || d.Failed == nil || d.Failed.Exit != "127" || d.Failed.LastLine() != "sh: claude: not found" {
		t.Errorf("decision %+v, failed %+v", d, d.Failed)
	}
}

func TestIterationThatWentWellKeepsNothing(t *testing.T) {
	d := AfterRun(RunFacts{Counters: Counters{Iteration: 2}, Ending: EndExited, ExitCode: code(0), LastLines: refusal}, testLimits)
	if d.Failed != nil {
		t.Errorf("failed %+v after exit 0", d.Failed)
	}
}

func TestQuietIterationKeepsNothing(t *testing.T) {
	d := AfterRun(RunFacts{Counters: Counters{Iteration: 2}, Ending: EndInactive, LastLines: refusal}, testLimits)
	if d.Failed != nil {
		t.Errorf("failed %+v after an inactivity timeout", d.Failed)
	}
}

func TestWaitWithoutRestartKeepsNothing(t *testing.T) {
	d := AfterRun(RunFacts{Counters: Counters{Iteration: 2}, Ending: EndExited, ExitCode: code(ExitWaitWithoutRestart), LastLines: refusal}, testLimits)
	if d.Failed != nil {
		t.Errorf("failed %+v after the agent asked to wait", d.Failed)
	}
}

func TestFailureBecomesTheLoopsLastFailure(t *testing.T) {
	now := time.Date(2026, 11, 25, 2, 0, 0, 0, time.UTC)
	st := State{LastFailure: &Failure{Iteration: 1, Exit: "hung"}}
	Decision{Failed: &Failure{Iteration: 3, Exit: "1", Lines: refusal}}.applyTo(&st, now)
	want := &Failure{Iteration: 3, Exit: "1", At: now.Format(TimeFormat), Lines: refusal}
	if !reflect.DeepEqual(st.LastFailure, want) {
		t.Errorf("last failure %+v, want %+v", st.LastFailure, want)
	}
}

func TestDecisionWithoutFailureKeepsTheLastOne(t *testing.T) {
	st := State{LastFailure: &Failure{Iteration: 1, Exit: "hung"}}
	Decision{Phase: PhaseEnded}.applyTo(&st, time.Now())
	if st.LastFailure == nil || st.LastFailure.Iteration != 1 {
		t.Errorf("last failure %+v, want iteration 1's kept", st.LastFailure)
	}
}

func TestNoticeFailedCarriesTheAgentsLastWord(t *testing.T) {
	var d Decision
	d.Stop(StatusFailed, "consecutive_failures", "5 consecutive failures")
	d.Escalate = "5 consecutive failures (last exit: 1)"
	wantNotices(t, Notices(d, NoticeFacts{LastFailure: &Failure{Iteration: 5, Lines: []string{"x", refusal[0]}}}),
		Notice{NotifyFailed, "5 consecutive failures (last exit: 1): " + refusal[0]})
}

func TestNoticeFailedWithoutLinesIsTheReasonAlone(t *testing.T) {
	var d Decision
	d.Stop(StatusFailed, "consecutive_failures", "")
	d.Escalate = "5 consecutive failures (last exit: 1)"
	wantNotices(t, Notices(d, NoticeFacts{LastFailure: &Failure{Iteration: 5}}), Notice{NotifyFailed, "5 consecutive failures (last exit: 1)"})
}
