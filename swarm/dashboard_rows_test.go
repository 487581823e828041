package swarm

import (
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/dashboard"
)

var frameNow = time.Date(2026, 11, 25, 14, 26, 44, 0, time.UTC)

// A loop's row: its kind from what kind of loop it is, its iteration, failures and cost from
// its state; a worker that is no loop has none of these.
func TestDashboardRowFor(t *testing.T) {
	tm := &state.TmuxInfo{}
	w := &state.Worker{Name: "lp", Status: state.StatusRunning, Tmux: tm, Tags: []string{"x"}, Started: frameNow}
	st := &ralph.State{Status: ralph.StatusRunning, Phase: ralph.PhaseWorking, CurrentIteration: 3, MaxIterations: 20,
		TotalFailures: 2, CostUSD: 0.5, CostIterations: 1}
	activity := frameNow.Add(-5 * time.Second)
	for _, c := range []struct {
		lf   loopFacts
		kind string
	}{{loopFacts{}, "loop"}, {loopFacts{chain: true}, "chain"}, {loopFacts{agent: true, chain: true}, "agent"}} {
		r := rowFor(w, st, c.lf, activity, frameNow)
		if r.Kind != c.kind || !r.Loop || r.Iteration != "3/20" || r.Failures != 2 || r.Cost == nil || *r.Cost != 0.5 ||
			!r.Changed.Equal(activity) || r.State != "working" || r.Tone != dashboard.ToneBusy {
			t.Errorf("%+v: %+v", c.lf, r)
		}
	}
	r := rowFor(&state.Worker{Name: "sh", Status: state.StatusRunning}, nil, loopFacts{}, time.Time{}, frameNow)
	if r.Kind != "plain" || r.Loop || r.Tmux || r.Iteration != "-" || r.Failures != -1 || r.Cost != nil || r.State != "running" {
		t.Errorf("a worker that is no loop: %+v", r)
	}
}

// The words for a loop's states, from its state file's facts.
func TestDashboardLoopWords(t *testing.T) {
	now := frameNow
	at := func(d time.Duration) string { return now.Add(d).Format(ralph.TimeFormat) }
	for _, c := range []struct {
		st   ralph.State
		want string
	}{
		{ralph.State{Status: ralph.StatusRunning, Phase: ralph.PhaseWorking, LastScreenChange: at(-2 * time.Second)}, "working"},
		{ralph.State{Status: ralph.StatusRunning, Phase: ralph.PhaseWorking, LastScreenChange: at(-time.Minute)}, "idle"},
		{ralph.State{Status: ralph.StatusRunning, Phase: ralph.PhaseStarting, BlockedBy: "trust-folder"}, "blocked (dialog: trust-folder)"},
		{ralph.State{Status: ralph.StatusRunning, Phase: ralph.PhaseWorking, NeedsPermission: "Bash"}, "blocked (permission: Bash)"},
		{ralph.State{Status: ralph.StatusRunning, Phase: ralph.PhaseBackoff, UnknownScreen: "/s/unknown-iteration-1.txt"}, "blocked (unknown screen)"},
		{ralph.State{Status: ralph.StatusRunning, Phase: ralph.PhaseBackoff, BackoffUntil: at(8 * time.Second)}, "backoff 8s"},
		{ralph.State{Status: ralph.StatusRunning, Phase: ralph.PhaseDelivering}, "starting"},
		{ralph.State{Status: ralph.StatusPaused}, "paused"},
		{ralph.State{Status: ralph.StatusFailed, ExitReason: "consecutive_failures"}, "failed (consecutive_failures)"},
		{ralph.State{Status: ralph.StatusStopped, ExitReason: "done_file"}, "done"},
		{ralph.State{Status: ralph.StatusStopped, ExitReason: "max_iterations"}, "stopped (max_iterations)"},
		{ralph.State{Status: ralph.StatusWaiting, WaitingUntil: time.Date(2026, 11, 25, 19, 30, 0, 0, time.Local).Format(ralph.TimeFormat)}, "waiting: limit until 19:30"},
		{ralph.State{Status: ralph.StatusRunning, Phase: ralph.PhaseEnded, TmuxSilentSince: at(-time.Minute)}, "waiting: tmux server not answering"},
	} {
		if got, _ := loopWords(&c.st, now); got != c.want {
			t.Errorf("%+v: %q, want %q", c.st, got, c.want)
		}
	}
}

func TestDashboardWorkerWords(t *testing.T) {
	code := 3
	for _, c := range []struct {
		w        state.Worker
		activity time.Time
		want     string
	}{
		{state.Worker{Status: state.StatusRunning, Tmux: &state.TmuxInfo{}}, frameNow.Add(-time.Second), "working"},
		{state.Worker{Status: state.StatusRunning, Tmux: &state.TmuxInfo{}}, frameNow.Add(-time.Hour), "idle"},
		{state.Worker{Status: state.StatusRunning}, time.Time{}, "running"},
		{state.Worker{Status: state.StatusStopped, ExitCode: &code}, time.Time{}, "stopped (exit 3)"},
		{state.Worker{Status: state.StatusOrphaned}, time.Time{}, "orphaned"},
	} {
		if got, _ := workerWords(&c.w, c.activity, frameNow); got != c.want {
			t.Errorf("%+v: %q, want %q", c.w, got, c.want)
		}
	}
}
