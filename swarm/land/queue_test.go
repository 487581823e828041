package land

import (
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

func TestNext(t *testing.T) {
	sent := &Record{State: NeedsRebase, BranchCommit: "aaa"}
	cases := []struct {
		name  string
		c     Candidate
		named bool
		want  Step
	}{
		{"new branch", Candidate{Tip: "aaa"}, false, StepLand},
		{"already on the target", Candidate{Tip: "aaa", Landed: true}, true, StepSkip},
		{"sent back, unchanged, --all", Candidate{Tip: "aaa", Record: sent}, false, StepSkip},
		{"sent back, unchanged, named", Candidate{Tip: "aaa", Record: sent}, true, StepLand},
		{"sent back, fixed since", Candidate{Tip: "bbb", Record: sent}, false, StepLand},
		{"breaks tests, unchanged", Candidate{Tip: "aaa", Record: &Record{State: BreaksTests, BranchCommit: "aaa"}}, false, StepSkip},
		{"killed while testing", Candidate{Tip: "aaa", Record: &Record{State: Testing, BranchCommit: "aaa"}}, false, StepLand},
		{"landed before, moved on since", Candidate{Tip: "bbb", Record: &Record{State: Landed, BranchCommit: "aaa"}}, false, StepLand},
	}
	for _, tc := range cases {
		if got, why := Next(tc.c, tc.named); got != tc.want {
			t.Errorf("%s: got %v (%s), want %v", tc.name, got, why, tc.want)
		}
	}
}

func TestFinished(t *testing.T) {
	stopped := &state.Worker{Status: state.StatusStopped}
	running := &state.Worker{Status: state.StatusRunning}
	cases := []struct {
		name string
		w    *state.Worker
		st   *ralph.State
		want bool
	}{
		{"plain worker stopped", stopped, nil, true},
		{"plain worker running", running, nil, false},
		{"loop complete", stopped, &ralph.State{Status: ralph.StatusStopped, ExitReason: "complete"}, true},
		{"loop out of iterations", stopped, &ralph.State{Status: ralph.StatusStopped, ExitReason: "max_iterations"}, false},
		{"loop failed", stopped, &ralph.State{Status: ralph.StatusFailed}, false},
		{"loop running", running, &ralph.State{Status: ralph.StatusRunning}, false},
	}
	for _, tc := range cases {
		if got := Finished(tc.w, tc.st); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
