package ralph

import (
	"testing"
	"time"
)

func TestAnAPIErrorIsAFailureWithBackoff(t *testing.T) {
	d := AfterRun(RunFacts{Counters: Counters{Iteration: 2, ConsecutiveFailures: 1, TotalFailures: 1}, Ending: EndAPIError,
		Running: true, Duration: 90 * time.Second}, testLimits)
	check(t, d, want{phase: PhaseBackoff, failures: [2]int{2, 2}, backoff: 2 * time.Second,
		lines: []string{"iteration 2 failed (exit: api_error), retrying in 2s (attempt 2/5)",
			"Regent: agent failed (api_error) — retrying in 2s (attempt 2/5)"},
		events: []string{"[FAIL] iteration 2 exit=api_error duration=1m30s"}})
	if EndAPIError.Reason() != "api_error" {
		t.Errorf("end reason %q", EndAPIError.Reason())
	}
}

func TestALoopWhoseIterationsAllFailedIsNotComplete(t *testing.T) {
	d, ok := BeforeIteration(Counters{Iteration: 3, ConsecutiveFailures: 3, TotalFailures: 3}, testLimitsMax(3), Markers{})
	check(t, d, want{status: StatusFailed, reason: "all_iterations_failed", phase: PhaseEnded,
		lines:    []string{"max iterations reached (3) and every iteration failed"},
		events:   []string{"[FAIL] max iterations reached (3) and every iteration failed"},
		escalate: "max iterations reached (3) and every iteration failed"})
	if ok {
		t.Error("another iteration allowed")
	}
	// One success among them: the loop used its iterations, as seed 004 says.
	d, _ = BeforeIteration(Counters{Iteration: 3, TotalFailures: 2}, testLimitsMax(3), Markers{})
	if d.ExitReason != "max_iterations" || d.Status != StatusStopped {
		t.Errorf("%s/%s", d.Status, d.ExitReason)
	}
}

func testLimitsMax(n int) Limits {
	l := testLimits
	l.MaxIterations = n
	return l
}
