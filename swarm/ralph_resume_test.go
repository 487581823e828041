package swarm

import (
	"reflect"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/internal/testmachine"
)

func resume(te *testEnv, name string, max int) error {
	return runRalphResume(te.env, ralphResumeOptions{Args: []string{name}, SetLimit: max > 0, MaxIterations: max})
}

// wantRegent checks that exactly one Regent (under its keeper) was started, for the state
// directory: it drives every loop, the named one included.
func wantRegent(t *testing.T, te *testEnv) {
	t.Helper()
	ks := te.keepers()
	if len(ks) != 1 {
		t.Fatalf("%d Regents started, want 1", len(ks))
	}
	argv := ks[0]
	want := []string{"--swarm-dir", te.Dir().Root, "--tmux-socket", te.Fake.Socket(), "regent", "__keep"}
	if !reflect.DeepEqual(argv[1:], want) {
		t.Errorf("keeper argv %q, want exe + %q", argv, want)
	}
}

// wantResumed checks the one event a resume logged and the keeper it started.
func wantResumed(t *testing.T, te *testEnv, ld ralph.Dir, name, event string) {
	t.Helper()
	if got := testmachine.Events(t, ld); !reflect.DeepEqual(got, []string{event}) {
		t.Errorf("log %q, want %q", got, event)
	}
	wantRegent(t, te)
}

func TestRalphResumeOfAPausedLoop(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("p", ralph.State{Status: ralph.StatusPaused, ExitReason: "paused", CurrentIteration: 2, Phase: ralph.PhaseWorking})
	if err := resume(te, "p", 0); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "resumed ralph loop for p\n" {
		t.Errorf("printed %q", got)
	}
	st := testmachine.LoopState(te.T, ld)
	if st.Status != ralph.StatusRunning || st.ExitReason != "" || st.Phase != ralph.PhaseWorking || st.CurrentIteration != 2 {
		t.Errorf("state %+v", st)
	}
	wantResumed(t, te, ld, "p", "[RESUME] resumed by user")
}

func TestRalphResumeOfAPausedLoopWhoseMonitorStillRuns(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("p", ralph.State{Status: ralph.StatusPaused, CurrentIteration: 1})
	testmachine.HoldMonitor(t, ld)
	if err := resume(te, "p", 0); err != nil {
		t.Fatal(err)
	}
	if testmachine.LoopState(te.T, ld).Status != ralph.StatusRunning {
		t.Error("not running")
	}
	if ks := te.keepers(); len(ks) != 0 {
		t.Errorf("a second monitor was started: %q", ks)
	}
}

func TestRalphResumeRestartsADeadMonitor(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("m", ralph.State{Status: ralph.StatusRunning, CurrentIteration: 1, Phase: ralph.PhaseWorking})
	if err := resume(te, "m", 0); err != nil {
		t.Fatal(err)
	}
	wantResumed(t, te, ld, "m", "[RESUME] monitor restarted")
}

func TestRalphResumeOfAFailedLoop(t *testing.T) {
	te := newLoopEnv(t)
	code := 1
	ld := te.loop("f", ralph.State{Status: ralph.StatusFailed, ExitReason: "consecutive_failures", MaxIterations: 9,
		CurrentIteration: 5, ConsecutiveFailures: 5, TotalFailures: 6, LastExitCode: &code, Phase: ralph.PhaseEnded, Ended: "x"})
	if err := resume(te, "f", 0); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "resumed ralph loop for f\n" {
		t.Errorf("printed %q", got)
	}
	st := testmachine.LoopState(te.T, ld)
	if st.Status != ralph.StatusRunning || st.ExitReason != "" || st.Ended != "" || st.ConsecutiveFailures != 0 ||
		st.TotalFailures != 6 || st.CurrentIteration != 5 || st.Phase != ralph.PhaseEnded {
		t.Errorf("state %+v", st)
	}
	wantResumed(t, te, ld, "f", "[RESUME] resumed after failure (consecutive_failures; 5 consecutive failures reset)")
}

func TestRalphResumeOfAFinishedLoop(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("d", ralph.State{Status: ralph.StatusStopped, ExitReason: "max_iterations", MaxIterations: 3, CurrentIteration: 3,
		Phase: ralph.PhaseEnded})
	wantErr(t, resume(te, "d", 0), 1,
		"ralph loop for 'd' is finished (max_iterations after 3 iterations); run more with 'swarm ralph resume d --max-iterations 6'")
	wantErr(t, resume(te, "d", 2), 1, "--max-iterations 2 is below the current iteration 3")
	if st := testmachine.LoopState(te.T, ld); st.Status != ralph.StatusStopped || st.MaxIterations != 3 {
		t.Errorf("a refused resume changed the loop: %+v", st)
	}
	if len(te.keepers()) != 0 || len(testmachine.Events(t, ld)) != 0 {
		t.Error("a refused resume started a monitor or logged")
	}

	if err := resume(te, "d", 60); err != nil {
		t.Fatal(err)
	}
	if got := te.errText(); got != "swarm: warning: high iteration count (>50) may consume significant resources\n" {
		t.Errorf("stderr %q", got)
	}
	st := testmachine.LoopState(te.T, ld)
	if st.Status != ralph.StatusRunning || st.MaxIterations != 60 || st.ExitReason != "" {
		t.Errorf("state %+v", st)
	}
	wantResumed(t, te, ld, "d", "[RESUME] resumed after max_iterations, iteration limit 60")
}

func TestRalphResumeRaisesTheLimitOfARunningLoop(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("r", ralph.State{Status: ralph.StatusRunning, MaxIterations: 3, CurrentIteration: 2})
	testmachine.HoldMonitor(t, ld)
	if err := resume(te, "r", 8); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "set the iteration limit of ralph loop for r to 8\n" {
		t.Errorf("printed %q", got)
	}
	if st := testmachine.LoopState(te.T, ld); st.MaxIterations != 8 || st.Status != ralph.StatusRunning {
		t.Errorf("state %+v", st)
	}
	if len(te.keepers()) != 0 {
		t.Error("a second monitor was started")
	}
}

func TestRalphResumeOfALoopThatNeedsNothing(t *testing.T) {
	te := newLoopEnv(t)
	running := te.loop("r", ralph.State{Status: ralph.StatusRunning, CurrentIteration: 1})
	testmachine.HoldMonitor(t, running)
	killed := te.loop("k", ralph.State{Status: ralph.StatusStopped, ExitReason: "killed", CurrentIteration: 1})
	for _, name := range []string{"r", "k"} {
		if err := resume(te, name, 0); err != nil {
			t.Fatal(err)
		}
		if got := te.errText(); got != "swarm: warning: worker '"+name+"' is not paused\n" {
			t.Errorf("stderr %q", got)
		}
	}
	if st := testmachine.LoopState(te.T, killed); st.Status != ralph.StatusStopped || st.ExitReason != "killed" {
		t.Errorf("a killed loop came back: %+v", st)
	}
	if len(te.keepers()) != 0 {
		t.Error("a monitor was started")
	}
}

func TestRalphResumeErrors(t *testing.T) {
	te := newLoopEnv(t)
	te.spawn("plain", "")
	wantErr(t, resume(te, "plain", 0), 1, "worker 'plain' is not a ralph worker")
	wantErr(t, resume(te, "ghost", 0), 2, "no worker named 'ghost'")
	wantErr(t, ralphResumeOptions{}.check(), 1, "usage: swarm ralph resume NAME [--max-iterations N]")
	wantErr(t, ralphResumeOptions{Args: []string{"a"}, SetLimit: true}.check(), 1, "--max-iterations must be at least 1")
	if err := (ralphResumeOptions{Args: []string{"a"}}).check(); err != nil {
		t.Error(err)
	}
}
