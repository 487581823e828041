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
		push  bool
		want  Step
	}{
		{"new branch", Candidate{Tip: "aaa"}, false, false, StepLand},
		{"already on the target", Candidate{Tip: "aaa", Landed: true}, true, false, StepSkip},
		{"sent back, unchanged, --all", Candidate{Tip: "aaa", Record: sent}, false, false, StepSkip},
		{"sent back, unchanged, named", Candidate{Tip: "aaa", Record: sent}, true, false, StepLand},
		{"sent back, fixed since", Candidate{Tip: "bbb", Record: sent}, false, false, StepLand},
		{"breaks tests, unchanged", Candidate{Tip: "aaa", Record: &Record{State: BreaksTests, BranchCommit: "aaa"}}, false, false, StepSkip},
		{"killed while testing", Candidate{Tip: "aaa", Record: &Record{State: Testing, BranchCommit: "aaa"}}, false, false, StepLand},
		{"landed before, moved on since", Candidate{Tip: "bbb", Record: &Record{State: Landed, BranchCommit: "aaa"}}, false, false, StepLand},
		{"landed, pushed, --push", Candidate{Tip: "aaa", Landed: true, Record: &Record{State: Landed, Pushed: "origin/main"}}, false, true, StepSkip},
		{"landed, not pushed, --push", Candidate{Tip: "aaa", Landed: true, Record: &Record{State: Landed}}, false, true, StepPush},
		{"landed, not pushed, no --push", Candidate{Tip: "aaa", Landed: true, Record: &Record{State: Landed}}, false, false, StepSkip},
		{"on the target without a record, --push", Candidate{Tip: "aaa", Landed: true}, false, true, StepSkip},
	}
	for _, tc := range cases {
		if got, why := Next(tc.c, tc.named, tc.push); got != tc.want {
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
