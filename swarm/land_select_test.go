package swarm

import (
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/land"
)

func TestPassedOverSaysTheStateAsLsDoes(t *testing.T) {
	one, term := 1, 143
	loop := func(status ralph.Status, reason string) *ralph.State {
		return &ralph.State{Status: status, ExitReason: reason}
	}
	cases := []struct {
		status string
		exit   *int
		loop   *ralph.State
		want   string
	}{
		{state.StatusStopped, &term, loop(ralph.StatusStopped, "max_iterations"), "stopped: max_iterations"},
		{state.StatusStopped, &term, loop(ralph.StatusFailed, "consecutive_failures"), "failed: consecutive_failures"},
		{state.StatusStopped, &term, loop(ralph.StatusStopped, "killed"), "killed"},
		{state.StatusRunning, nil, loop(ralph.StatusRunning, ""), "still running"},
		{state.StatusRunning, nil, loop(ralph.StatusPaused, "paused"), "paused: finishing iteration"},
		{state.StatusStopped, &one, nil, "stopped: exit 1"},
		{state.StatusRunning, nil, nil, "still running"},
		{state.StatusOrphaned, nil, nil, "orphaned"},
	}
	for _, tc := range cases {
		if got := passedOverWhy(stateOf(tc.status, tc.exit, tc.loop)); got != tc.want {
			t.Errorf("%s %v %+v: got %q, want %q", tc.status, tc.exit, tc.loop, got, tc.want)
		}
	}
}

func TestNothingToLandSaysWhy(t *testing.T) {
	sel := land.Selection{Repo: "/src/p"}
	if got, want := nothingToLand(sel), "nothing to land: no finished worker with a branch of its own in /src/p"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	sel.PassedOver, sel.Elsewhere = make([]land.PassedOver, 2), 1
	want := "nothing to land: no finished worker with a branch of its own in /src/p; 2 workers passed over (name one to land it anyway); " +
		"1 worker with a branch in other repositories (land them from there, or with --repo PATH)"
	if got := nothingToLand(sel); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestAgainCommand(t *testing.T) {
	st := &ralph.State{CurrentIteration: 3, MaxIterations: 3}
	cases := []struct {
		o    ralphResumeOptions
		st   *ralph.State
		want string
	}{
		{ralphResumeOptions{}, &ralph.State{CurrentIteration: 2, MaxIterations: 5}, "swarm ralph resume w1 --again"},
		{ralphResumeOptions{}, st, "swarm ralph resume w1 --again --max-iterations 6"},
		{ralphResumeOptions{SetLimit: true, MaxIterations: 10}, st, "swarm ralph resume w1 --again --max-iterations 10"},
	}
	for _, tc := range cases {
		if got := againCommand("w1", tc.o, tc.st); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}
