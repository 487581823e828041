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

func TestOffered(t *testing.T) {
	exit := func(code int) *state.Worker { return &state.Worker{Status: state.StatusStopped, ExitCode: &code} }
	stopped := exit(143)
	loop := func(status ralph.Status, reason string) *ralph.State {
		return &ralph.State{Status: status, ExitReason: reason}
	}
	cases := []struct {
		name string
		w    *state.Worker
		st   *ralph.State
		want bool
	}{
		{"plain worker exited 0", exit(0), nil, true},
		{"plain worker exited 1", exit(1), nil, false},
		{"plain worker stopped, its code unknown", &state.Worker{Status: state.StatusStopped}, nil, false},
		{"plain worker running", &state.Worker{Status: state.StatusRunning}, nil, false},
		{"plain worker orphaned", &state.Worker{Status: state.StatusOrphaned}, nil, false},
		{"loop complete", stopped, loop(ralph.StatusStopped, "complete"), true},
		{"loop ended on its done pattern or a marker", stopped, loop(ralph.StatusStopped, "done_pattern"), true},
		{"loop ended on the DONE file", stopped, loop(ralph.StatusStopped, "done_file"), true},
		{"loop out of iterations", stopped, loop(ralph.StatusStopped, "max_iterations"), false},
		{"loop stagnated", stopped, loop(ralph.StatusStopped, "stagnated"), false},
		{"loop killed", stopped, loop(ralph.StatusStopped, "killed"), false},
		{"loop failed", stopped, loop(ralph.StatusFailed, "consecutive_failures"), false},
		{"loop paused", stopped, loop(ralph.StatusPaused, ""), false},
		{"loop running", &state.Worker{Status: state.StatusRunning}, loop(ralph.StatusRunning, ""), false},
	}
	for _, tc := range cases {
		if got := Offered(tc.w, tc.st); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestNextOfABranchThatCannotBeTakenUp(t *testing.T) {
	landed := &Record{State: Landed, Target: "main", Commit: "0123456789abcdef"}
	cases := []struct {
		name string
		c    Candidate
		step Step
		why  string
	}{
		{"branch deleted before it landed", Candidate{Branch: "w2", Problem: "branch w2 no longer exists", Gone: true, Record: &Record{State: NeedsRebase}},
			StepCannot, "branch w2 no longer exists"},
		{"branch deleted once landed", Candidate{Branch: "w2", Problem: "branch w2 no longer exists", Gone: true, Record: landed},
			StepSkip, "landed on main earlier at 0123456; branch w2 no longer exists"},
		{"no target, though it landed once", Candidate{Problem: "no branch checked out in /r to land into (use --into BRANCH)", Record: landed},
			StepCannot, "no branch checked out in /r to land into (use --into BRANCH)"},
	}
	for _, tc := range cases {
		for _, named := range []bool{false, true} {
			if step, why := Next(tc.c, named, false); step != tc.step || why != tc.why {
				t.Errorf("%s (named %v): got %v %q, want %v %q", tc.name, named, step, why, tc.step, tc.why)
			}
		}
	}
}
