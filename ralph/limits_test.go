package ralph

import (
	"testing"
	"time"
)

func TestUsageLimitWaitsForTheReset(t *testing.T) {
	now := time.Date(2026, 11, 24, 19, 0, 0, 0, time.UTC)
	reset := now.Add(2 * time.Hour)
	f := RunFacts{Counters: Counters{Iteration: 3, ConsecutiveFailures: 1, TotalFailures: 2}, Ending: EndUsageLimit, Running: true,
		Limit: &LimitFacts{Text: "You've hit your session limit · resets 9pm (UTC)", Reset: reset, Now: now}}
	d := AfterRun(f, testLimits)
	if d.Status != StatusWaiting || d.Phase != PhaseWaiting || d.SetCounters || d.Backoff != 0 || !d.EndAgent {
		t.Errorf("decision %+v", d)
	}
	if !d.WaitUntil.Equal(reset.Add(DefaultLimitMargin)) || d.WaitFor != f.Limit.Text || !d.WaitReset.Equal(reset) {
		t.Errorf("waits until %v for %q (reset %v)", d.WaitUntil, d.WaitFor, d.WaitReset)
	}
	if got := eventTexts(d); len(got) != 1 || got[0] != "[LIMIT] iteration 3 You've hit your session limit · resets 9pm (UTC); waiting until 2026-11-24T21:01:00Z" {
		t.Errorf("events %q", got)
	}
	// A reset that cannot be read, or lies in the past: --limit-wait.
	lim := testLimits
	lim.LimitWait = 10 * time.Minute
	for _, r := range []time.Time{{}, now.Add(-time.Hour)} {
		f.Limit.Reset = r
		if d := AfterRun(f, lim); !d.WaitUntil.Equal(now.Add(10*time.Minute)) || !d.WaitReset.IsZero() {
			t.Errorf("reset %v: waits until %v (reset %v)", r, d.WaitUntil, d.WaitReset)
		}
	}
	// The last iteration: nothing left to wait for.
	f.Iteration = testLimits.MaxIterations
	if d := AfterRun(f, testLimits); d.Status == StatusWaiting {
		t.Error("waited after the last iteration")
	}
	// Another loop's limit on the same account says so.
	d = LimitHit(2, LimitFacts{Text: "limit", Reset: reset, Now: now, By: "w1"}, testLimits)
	if got := lineTexts(d); len(got) != 1 || got[0] != "usage limit (hit by w1, same account): limit — waiting until "+d.WaitUntil.Local().Format("2006-01-02 15:04 MST")+", then resuming" {
		t.Errorf("lines %q", got)
	}
	if d.WaitFor != "limit (hit by w1, same account)" {
		t.Errorf("waits for %q", d.WaitFor)
	}
}

func TestWaitingLoopsAndTheUser(t *testing.T) {
	st := &State{Status: StatusWaiting, Phase: PhaseWaiting, CurrentIteration: 2, MaxIterations: 5}
	d, start, err := Resume(st, ResumeRequest{MonitorAlive: true})
	if err != nil || start || d.Status != StatusRunning || d.Phase != PhaseEnded {
		t.Errorf("resume: %+v %v %v", d, start, err)
	}
	if _, start, _ := Resume(st, ResumeRequest{}); !start {
		t.Error("a waiting loop without a monitor needs one")
	}
	d, err = Pause(st, "paused by user", "paused")
	if err != nil || d.Status != StatusPaused || d.Phase != PhaseEnded {
		t.Errorf("pause: %+v %v", d, err)
	}
	if d := Killed(st); d.Status != StatusStopped {
		t.Errorf("kill: %+v", d)
	}
	over := LimitOver()
	if over.Status != StatusRunning || over.Phase != PhaseEnded {
		t.Errorf("limit over: %+v", over)
	}
	// The waiting fields go once the wait is over.
	st.WaitingUntil, st.WaitingFor = "x", "y"
	over.applyTo(st, time.Now())
	if st.WaitingUntil != "" || st.WaitingFor != "" {
		t.Errorf("still waiting: %q %q", st.WaitingUntil, st.WaitingFor)
	}
}
