package ralph

import (
	"testing"
	"time"
)

// AfterRun: what follows an iteration, one transition per case.

func TestAfterRun(t *testing.T) {
	dur := 90 * time.Second
	fixed := testLimits
	fixed.Supervision.RetryBackoffSeconds = 30
	noSupervision := testLimits
	noSupervision.Supervision.Enabled = false
	cases := []struct {
		name string
		f    RunFacts
		lim  Limits
		want want
	}{
		{"success resets the failure count", RunFacts{Counters: Counters{Iteration: 2, ConsecutiveFailures: 3, TotalFailures: 4}, Ending: EndExited, ExitCode: code(0)},
			testLimits, want{phase: PhaseEnded, failures: [2]int{0, 4}, lines: []string{"iteration 2 completed (exit: 0, duration: 1m 30s)"},
				events: []string{"[END] iteration 2 exit=0 duration=1m30s"}}},
		{"first failure backs off 1s", RunFacts{Counters: Counters{Iteration: 2}, Ending: EndExited, ExitCode: code(1)},
			testLimits, want{phase: PhaseBackoff, failures: [2]int{1, 1}, backoff: time.Second,
				lines: []string{"iteration 2 failed (exit: 1), retrying in 1s (attempt 1/5)",
					"Regent: agent exited (exit 1) — retrying in 1s (attempt 1/5)"},
				events: []string{"[FAIL] iteration 2 exit=1 duration=1m30s"}}},
		{"third failure backs off 4s", RunFacts{Counters: Counters{Iteration: 4, ConsecutiveFailures: 2, TotalFailures: 2}, Ending: EndExited, ExitCode: code(3)},
			testLimits, want{phase: PhaseBackoff, failures: [2]int{3, 3}, backoff: 4 * time.Second,
				lines: []string{"iteration 4 failed (exit: 3), retrying in 4s (attempt 3/5)",
					"Regent: agent exited (exit 3) — retrying in 4s (attempt 3/5)"},
				events: []string{"[FAIL] iteration 4 exit=3 duration=1m30s"}}},
		{"a fixed retry wait wins", RunFacts{Counters: Counters{Iteration: 4, ConsecutiveFailures: 2}, Ending: EndExited, ExitCode: code(3)},
			fixed, want{phase: PhaseBackoff, failures: [2]int{3, 1}, backoff: 30 * time.Second,
				lines: []string{"iteration 4 failed (exit: 3), retrying in 30s (attempt 3/5)",
					"Regent: agent exited (exit 3) — retrying in 30s (attempt 3/5)"},
				events: []string{"[FAIL] iteration 4 exit=3 duration=1m30s"}}},
		{"fifth failure gives up and escalates", RunFacts{Counters: Counters{Iteration: 6, ConsecutiveFailures: 4, TotalFailures: 4}, Ending: EndExited, ExitCode: code(1)},
			testLimits, want{status: StatusFailed, reason: "consecutive_failures", phase: PhaseEnded, failures: [2]int{5, 5},
				lines:    []string{"5 consecutive failures, stopping loop"},
				events:   []string{"[FAIL] iteration 6 exit=1 duration=1m30s", "[FAIL] 5 consecutive failures, stopping loop"},
				escalate: "5 consecutive failures (last exit: 1)"}},
		{"a failure in the last iteration does not wait", RunFacts{Counters: Counters{Iteration: 10}, Ending: EndExited, ExitCode: code(1)},
			testLimits, want{phase: PhaseEnded, failures: [2]int{1, 1}, lines: []string{"iteration 10 failed (exit: 1)"},
				events: []string{"[FAIL] iteration 10 exit=1 duration=1m30s"}}},
		{"an unknown exit is a failure", RunFacts{Counters: Counters{Iteration: 2}, Ending: EndExited},
			testLimits, want{phase: PhaseBackoff, failures: [2]int{1, 1}, backoff: time.Second,
				lines: []string{"iteration 2 failed (exit: unknown), retrying in 1s (attempt 1/5)",
					"Regent: agent exited (exit unknown) — retrying in 1s (attempt 1/5)"},
				events: []string{"[FAIL] iteration 2 exit=unknown duration=1m30s"}}},
		{"quiet is neither failure nor success", RunFacts{Counters: Counters{Iteration: 2, ConsecutiveFailures: 2, TotalFailures: 2}, Ending: EndInactive, Running: true},
			testLimits, want{phase: PhaseEnded, failures: [2]int{2, 2}}},
		{"quiet in the last iteration ends the loop at its limit", RunFacts{Counters: Counters{Iteration: 10}, Ending: EndInactive, Running: true},
			testLimits, want{status: StatusStopped, reason: "max_iterations", phase: PhaseEnded, lines: []string{"max iterations (10) reached"},
				events: []string{"[STOP] max iterations (10) reached"}}},
		{"quiet in the last iteration of a paused loop leaves it paused", RunFacts{Counters: Counters{Iteration: 10}, Ending: EndInactive},
			testLimits, want{phase: PhaseEnded}},
		{"a turn that ended without the marker is neither failure nor success", RunFacts{Counters: Counters{Iteration: 2, ConsecutiveFailures: 1, TotalFailures: 1}, Ending: EndTurnEnded, Running: true},
			testLimits, want{phase: PhaseEnded, failures: [2]int{1, 1}}},
		{"a turn that ended in the last iteration ends the loop at its limit", RunFacts{Counters: Counters{Iteration: 10}, Ending: EndTurnEnded, Running: true},
			testLimits, want{status: StatusStopped, reason: "max_iterations", phase: PhaseEnded, lines: []string{"max iterations (10) reached"},
				events: []string{"[STOP] max iterations (10) reached"}}},
		{"hung is a failure", RunFacts{Counters: Counters{Iteration: 2}, Ending: EndHung},
			testLimits, want{phase: PhaseBackoff, failures: [2]int{1, 1}, backoff: time.Second,
				lines: []string{"iteration 2 failed (exit: hung), retrying in 1s (attempt 1/5)",
					"Regent: agent failed (hung) — retrying in 1s (attempt 1/5)"},
				events: []string{"[FAIL] iteration 2 exit=hung duration=1m30s"}}},
		{"out of time is a failure", RunFacts{Counters: Counters{Iteration: 2}, Ending: EndIterationTimeout},
			testLimits, want{phase: PhaseBackoff, failures: [2]int{1, 1}, backoff: time.Second,
				lines: []string{"iteration 2 failed (exit: iteration timeout), retrying in 1s (attempt 1/5)",
					"Regent: agent failed (iteration timeout) — retrying in 1s (attempt 1/5)"},
				events: []string{"[FAIL] iteration 2 exit=iteration timeout duration=1m30s"}}},
		{"never ready is a failure", RunFacts{Counters: Counters{Iteration: 2}, Ending: EndReadyTimeout},
			testLimits, want{phase: PhaseBackoff, failures: [2]int{1, 1}, backoff: time.Second,
				lines: []string{"iteration 2 failed (exit: ready timeout), retrying in 1s (attempt 1/5)",
					"Regent: agent failed (ready timeout) — retrying in 1s (attempt 1/5)"},
				events: []string{"[FAIL] iteration 2 exit=ready timeout duration=1m30s"}}},
		{"exit 42 stops without failing", RunFacts{Counters: Counters{Iteration: 2}, Ending: EndExited, ExitCode: code(42)},
			testLimits, want{status: StatusStopped, reason: "wait_without_restart", phase: PhaseEnded,
				lines:  []string{"wait-without-restart signal detected (agent exited with 42), stopping loop"},
				events: []string{"[WAIT] agent exited with 42"}}},
		{"an agent that cannot start is fatal", RunFacts{Counters: Counters{Iteration: 2}, Ending: EndExited, ExitCode: code(127), FatalReason: "executable not found: ./a.sh"},
			testLimits, want{status: StatusFailed, reason: "fatal_error", phase: PhaseEnded,
				lines:    []string{"fatal error: executable not found: ./a.sh, stopping loop (no retries)"},
				events:   []string{"[FAIL] executable not found: ./a.sh"},
				escalate: "fatal error: executable not found: ./a.sh"}},
		{"fatal without supervision is not escalated", RunFacts{Counters: Counters{Iteration: 2}, Ending: EndExited, ExitCode: code(126), FatalReason: "permission denied (exit 126)"},
			noSupervision, want{status: StatusFailed, reason: "fatal_error", phase: PhaseEnded,
				lines:  []string{"fatal error: permission denied (exit 126), stopping loop (no retries)"},
				events: []string{"[FAIL] permission denied (exit 126)"}}},
		{"the DONE file wins over a failure", RunFacts{Counters: Counters{Iteration: 2}, Ending: EndExited, ExitCode: code(1), Markers: Markers{DoneFile: true, DonePath: "D"}},
			testLimits, want{status: StatusStopped, reason: "done_file", phase: PhaseEnded,
				lines: []string{"task completed (DONE marker present), stopping loop"}, events: []string{"[DONE] DONE file present at D"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.f.Duration = dur
			check(t, AfterRun(c.f, c.lim), c.want)
		})
	}
}

func TestRetryWaitNeedsSupervisionForAFixedWait(t *testing.T) {
	rc := SupervisionConfig{Enabled: false, RetryBackoffSeconds: 30}
	if got := RetryWait(3, rc); got != 4*time.Second {
		t.Errorf("without supervision: %v, want the doubling 4s", got)
	}
	rc.Enabled = true
	if got := RetryWait(3, rc); got != 30*time.Second {
		t.Errorf("with supervision: %v, want 30s", got)
	}
}

func TestEffectiveSupervision(t *testing.T) {
	if got := EffectiveSupervision(nil); got != DefaultSupervision() {
		t.Errorf("nil config: %+v, want the defaults", got)
	}
	if got := EffectiveSupervision(&SupervisionConfig{Enabled: true}); got.MaxFailures != MaxConsecutiveFailures {
		t.Errorf("no failure limit: %d, want %d", got.MaxFailures, MaxConsecutiveFailures)
	}
}
