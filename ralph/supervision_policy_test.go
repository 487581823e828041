package ralph

import (
	"errors"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func TestWatchLimits(t *testing.T) {
	lim := Limits{InactivitySeconds: 45, Supervision: SupervisionConfig{Enabled: true, HangTimeoutSeconds: 300, IterationTimeout: 900}}
	in, hang, limit := WatchLimits(lim)
	if in != 45*time.Second || hang != 300*time.Second || limit != 900*time.Second {
		t.Errorf("with supervision: %v %v %v", in, hang, limit)
	}
	lim.Supervision.Enabled = false
	if in, hang, limit = WatchLimits(lim); in != 45*time.Second || hang != 0 || limit != 0 {
		t.Errorf("without supervision only inactivity applies: %v %v %v", in, hang, limit)
	}
}

func TestQuiet(t *testing.T) {
	base := WatchFacts{Started: t0, Inactivity: time.Minute, Hang: 5 * time.Minute}
	cases := []struct {
		name         string
		now          time.Duration // since t0
		change, prog time.Duration // last change and last progress, since t0
		hang         time.Duration
		want         Ending
		ended        bool
	}{
		{"changing screen goes on", 10 * time.Minute, 9*time.Minute + 30*time.Second, 9 * time.Minute, 5 * time.Minute, 0, false},
		{"unchanged for the inactivity timeout", 10 * time.Minute, 9 * time.Minute, 9 * time.Minute, 5 * time.Minute, EndInactive, true},
		{"just under the inactivity timeout", 10 * time.Minute, 9*time.Minute + time.Millisecond, 9 * time.Minute, 5 * time.Minute, 0, false},
		{"spinner only, no progress: hung", 10 * time.Minute, 10 * time.Minute, 5 * time.Minute, 5 * time.Minute, EndHung, true},
		{"spinner only without hang detection", 10 * time.Minute, 10 * time.Minute, 0, 0, 0, false},
		{"quiet wins over hung", 10 * time.Minute, 0, 0, 5 * time.Minute, EndInactive, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := base
			f.Now, f.LastChange, f.LastProgress, f.Hang = t0.Add(c.now), t0.Add(c.change), t0.Add(c.prog), c.hang
			got, ended := Quiet(f)
			if got != c.want || ended != c.ended {
				t.Errorf("Quiet = %v, %v; want %v, %v", got, ended, c.want, c.ended)
			}
		})
	}
}

func TestOutOfTime(t *testing.T) {
	f := WatchFacts{Started: t0, Now: t0.Add(10 * time.Minute), Limit: 10 * time.Minute}
	if !OutOfTime(f) {
		t.Error("at the limit the iteration is out of time")
	}
	f.Now = t0.Add(10*time.Minute - time.Second)
	if OutOfTime(f) {
		t.Error("a second before the limit it is not")
	}
	f.Limit = 0
	f.Now = t0.Add(100 * time.Hour)
	if OutOfTime(f) {
		t.Error("without a limit it never is")
	}
}

func TestGate(t *testing.T) {
	configured := GateFacts{Configured: true, StartCommit: "aaa1111", Commits: []string{"ccc3333", "bbb2222"}}
	with := func(fn func(*GateFacts)) GateFacts { f := configured; fn(&f); return f }
	cases := []struct {
		name string
		f    GateFacts
		step GateStep
		want want
	}{
		{"not configured: nothing to do", GateFacts{Commits: []string{"c"}}, GateDone, want{}},
		{"no commits: nothing to test", with(func(f *GateFacts) { f.Commits = nil }), GateDone, want{}},
		{"commits: run the tests", configured, GateRunTests, want{}},
		{"tests pass: keep", with(func(f *GateFacts) { f.Tested, f.TestsPassed = true, true }), GateDone,
			want{lines: []string{"Regent: Tests passed ✅ — commit ccc3333 kept"}, events: []string{"[TESTS] passed at ccc3333"}}},
		{"tests cannot run: stop", with(func(f *GateFacts) { f.Tested, f.ConfigError = true, "no shell" }), GateStop,
			want{status: StatusFailed, reason: "test_command_error", phase: PhaseEnded,
				lines:  []string{"Regent: test command cannot run: no shell — configuration error, stopping loop"},
				events: []string{"[FAIL] no shell"}, escalate: "test command cannot run: no shell"}},
		{"tests fail: check the start", with(func(f *GateFacts) { f.Tested = true }), GateRunBaseline, want{}},
		{"already failing: keep", with(func(f *GateFacts) { f.Tested, f.BaselineTested, f.BaselineFailed = true, true, true }), GateDone,
			want{lines: []string{"Regent: Tests failed, but they were already failing before this iteration (at aaa1111) — commits kept"},
				events: []string{"[TESTS] failed at ccc3333 and already at aaa1111; nothing reverted"}}},
		{"broken by the iteration: revert newest first", with(func(f *GateFacts) { f.Tested, f.BaselineTested = true, true }), GateRevert,
			want{lines: []string{"Regent: Tests failed ❌ — reverting commit ccc3333", "Regent: Tests failed ❌ — reverting commit bbb2222"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			step, d := Gate(c.f)
			if step != c.step {
				t.Fatalf("step %v, want %v", step, c.step)
			}
			check(t, d, c.want)
		})
	}
}

func TestReverted(t *testing.T) {
	d, stop := Reverted([]string{"ccc3333", "bbb2222"}, nil)
	if stop {
		t.Error("reverts that went through do not stop the loop")
	}
	check(t, d, want{events: []string{"[ROLLBACK] reverted ccc3333", "[ROLLBACK] reverted bbb2222"}})
}

func TestRevertFailureStopsTheLoop(t *testing.T) {
	d, stop := Reverted([]string{"ccc3333"}, errors.New("error: could not revert bbb2222\nhint: after resolving the conflicts\nhint: mark them"))
	if !stop {
		t.Fatal("a failed revert must stop the loop")
	}
	one := "error: could not revert bbb2222 hint: after resolving the conflicts hint: mark them"
	check(t, d, want{status: StatusFailed, reason: "rollback_failed", phase: PhaseEnded,
		events:   []string{"[ROLLBACK] reverted ccc3333", "[FAIL] could not revert: " + one},
		lines:    []string{"Regent: could not revert: " + one + " — stopping loop"},
		escalate: "tests failed and the revert failed: " + one})
}

func TestResurrection(t *testing.T) {
	now := t0.Add(time.Hour)
	recent := []time.Time{now.Add(-3 * time.Minute), now.Add(-90 * time.Second), now.Add(-time.Minute)}
	keep, d := Resurrection(recent, now, 4242, 7, 4, true)
	if len(keep) != 3 || !keep[2].Equal(now) {
		t.Errorf("kept %v: the one older than two minutes goes, this one is added", keep)
	}
	check(t, d, want{lines: []string{"Regent: monitor (pid 4242) died — resurrected at iteration 7 (resurrection #4)"},
		events: []string{"[RESURRECT] monitor pid 4242 died; resurrected at iteration 7 (#4)"}})

	recent = []time.Time{now.Add(-100 * time.Second), now.Add(-80 * time.Second), now.Add(-60 * time.Second), now.Add(-40 * time.Second)}
	keep, d = Resurrection(recent, now, 4243, 7, 9, true)
	if len(keep) != 5 {
		t.Errorf("kept %d, want 5", len(keep))
	}
	check(t, d, want{status: StatusFailed, reason: "monitor_crash_loop", phase: PhaseEnded,
		lines: []string{"Regent: monitor (pid 4243) died — resurrected at iteration 7 (resurrection #9)",
			"Regent: monitor died 5 times in two minutes — stopping the loop"},
		events:   []string{"[RESURRECT] monitor pid 4243 died; resurrected at iteration 7 (#9)"},
		escalate: "monitor died 5 times in two minutes", endAgent: true})

	// Driven by the Regent: its deaths are the daemon's crash loop, not the loop's.
	_, d = Resurrection(recent, now, 4244, 7, 10, false)
	check(t, d, want{lines: []string{"Regent: monitor (pid 4244) died — resurrected at iteration 7 (resurrection #10)"},
		events: []string{"[RESURRECT] monitor pid 4244 died; resurrected at iteration 7 (#10)"}})
}

func TestCrashLoop(t *testing.T) {
	now := t0.Add(time.Hour)
	deaths := []time.Time{now.Add(-3 * time.Minute), now.Add(-100 * time.Second), now.Add(-80 * time.Second), now.Add(-60 * time.Second)}
	if keep, loop := CrashLoop(deaths, now); loop || len(keep) != 3 {
		t.Errorf("4 deaths, one of them old: kept %v, loop %v", keep, loop)
	}
	deaths = append(deaths[1:], now.Add(-time.Second), now)
	if _, loop := CrashLoop(deaths, now); !loop {
		t.Error("5 deaths in two minutes are a crash loop")
	}
}

func TestQuietAt(t *testing.T) {
	f := WatchFacts{LastChange: t0, LastProgress: t0.Add(-time.Minute), Inactivity: 3 * time.Second}
	if got := QuietAt(f); !got.Equal(t0.Add(3 * time.Second)) {
		t.Errorf("no hang detection: %v, want the inactivity deadline", got.Sub(t0))
	}
	f.Hang = 30 * time.Second
	if got := QuietAt(f); !got.Equal(t0.Add(-30 * time.Second)) {
		t.Errorf("hang due first: %v, want the hang deadline", got.Sub(t0))
	}
	f.Hang = 2 * time.Minute
	if got := QuietAt(f); !got.Equal(t0.Add(3 * time.Second)) {
		t.Errorf("inactivity due first: %v", got.Sub(t0))
	}
	// The moment it is due, Quiet holds.
	f.Now = QuietAt(f)
	if _, quiet := Quiet(f); !quiet {
		t.Error("Quiet does not hold at QuietAt")
	}
}

func TestMonitorCrashed(t *testing.T) {
	d := MonitorCrashed(4, "index out of range\ngoroutine 7 [running]")
	if d.Status != StatusFailed || d.ExitReason != "monitor_crashed" || !d.Ended || !d.EndAgent {
		t.Errorf("decision %+v: want the loop failed as monitor_crashed and its agent ended", d)
	}
	if d.Escalate != "monitor crashed: index out of range goroutine 7 [running]" {
		t.Errorf("escalation %q", d.Escalate)
	}
	if len(d.Events) != 1 || d.Events[0].Kind != "FAIL" || d.Events[0].Text != "iteration 4: the monitor crashed: index out of range goroutine 7 [running]" {
		t.Errorf("events %+v", d.Events)
	}
	if len(d.Lines) != 1 || !d.Lines[0].Supervision {
		t.Errorf("lines %+v: want the supervision line", d.Lines)
	}
}

// Supervision announces the restart after a failed agent's wait, while iterations are left and
// only when it supervises the loop.
func TestRestarting(t *testing.T) {
	lim := testLimitsMax(5)
	check(t, Restarting(3, lim), want{lines: []string{"Regent: Restarting the agent (iteration 3/5)..."},
		events: nil})
	if d := Restarting(6, lim); len(d.Lines) != 0 {
		t.Errorf("past the limit: %v", lineTexts(d))
	}
	lim.Supervision.Enabled = false
	if d := Restarting(3, lim); len(d.Lines) != 0 {
		t.Errorf("without supervision: %v", lineTexts(d))
	}
}

func TestAnAgentHeldForAnAnswerIsNeitherQuietNorHung(t *testing.T) {
	f := WatchFacts{Started: t0, Inactivity: time.Minute, Hang: 5 * time.Minute, Now: t0.Add(time.Hour),
		LastChange: t0, LastProgress: t0, Held: true}
	if ending, ended := Quiet(f); ended {
		t.Fatalf("a held agent ended: %v", ending)
	}
	f.Held = false
	if _, ended := Quiet(f); !ended {
		t.Fatal("the same agent, not held, goes on")
	}
}
