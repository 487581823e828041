package loop

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/internal/testmachine"
	"github.com/swarm-dev/swarm/swarm/regent"
)

func TestPause(t *testing.T) {
	mt := newTestMachine(t)
	ld := mt.SpawnLoop("p", ralph.State{Status: ralph.StatusRunning, CurrentIteration: 1})
	if err := On(mt.Machine).Pause("p"); err != nil {
		t.Fatal(err)
	}
	if st := testmachine.LoopState(t, ld); st.Status != ralph.StatusPaused || st.ExitReason != "paused" {
		t.Errorf("state %s (%s)", st.Status, st.ExitReason)
	}
	if err := On(mt.Machine).Pause("p"); !errors.Is(err, ralph.ErrUnchanged) {
		t.Errorf("paused again: %v", err)
	}
	if got := testmachine.Events(t, ld); !reflect.DeepEqual(got, []string{"[PAUSE] paused by user"}) {
		t.Errorf("log %q", got)
	}
	mt.SpawnLoop("f", ralph.State{Status: ralph.StatusFailed})
	if err := On(mt.Machine).Pause("f"); !errors.Is(err, ralph.ErrNotRunning) {
		t.Errorf("paused a failed loop: %v", err)
	}
}

func TestResumeStartsItsMonitor(t *testing.T) {
	mt := newTestMachine(t)
	mt.SpawnLoop("p", ralph.State{Status: ralph.StatusPaused, ExitReason: "paused", CurrentIteration: 2, Phase: ralph.PhaseWorking})
	r, err := On(mt.Machine).Resume("p", ralph.ResumeRequest{})
	if err != nil || r.LimitOnly || r.State.Status != ralph.StatusRunning {
		t.Fatalf("resumed %+v, error %v", r, err)
	}
	if err := On(mt.Machine).WakeDriver("p", r); err != nil {
		t.Fatal(err)
	}
	if len(mt.PanesOf(regent.Session)) != 1 {
		t.Errorf("keepers %q, want the Regent's", mt.PanesOf(regent.Session))
	}
}

func TestResumeOnlyRaisesTheLimitOfARunningLoop(t *testing.T) {
	mt := newTestMachine(t)
	ld := mt.SpawnLoop("m", ralph.State{Status: ralph.StatusRunning, CurrentIteration: 2, Phase: ralph.PhaseWorking})
	testmachine.HoldMonitor(t, ld)
	r, err := On(mt.Machine).Resume("m", ralph.ResumeRequest{MaxIterations: 9})
	if err != nil || !r.LimitOnly || r.State.MaxIterations != 9 {
		t.Fatalf("resumed %+v, error %v", r, err)
	}
	if err := On(mt.Machine).WakeDriver("m", r); err != nil || len(mt.PanesOf(regent.Session)) != 0 {
		t.Errorf("error %v, keepers %q", err, mt.PanesOf(regent.Session))
	}
}

func TestResumeRefusesAKilledLoop(t *testing.T) {
	mt := newTestMachine(t)
	ld := mt.SpawnLoop("k", ralph.State{Status: ralph.StatusStopped, ExitReason: "killed"})
	if _, err := On(mt.Machine).Resume("k", ralph.ResumeRequest{}); !errors.Is(err, ErrKilled) {
		t.Errorf("error %v", err)
	}
	if st := testmachine.LoopState(t, ld); st.Status != ralph.StatusStopped {
		t.Errorf("state %s", st.Status)
	}
}

// A failed chain goes on from the step it stopped at, and the loop gets a monitor.
func TestResumeOfAFailedChain(t *testing.T) {
	mt := newTestMachine(t)
	ld := mt.SpawnLoop("c", ralph.State{Status: ralph.StatusFailed, ExitReason: "consecutive_failures", CurrentIteration: 2})
	cs := &ralph.ChainState{Status: ralph.ChainFailed, Steps: []ralph.ChainStepState{{ChainStep: ralph.ChainStep{Agent: "a", MaxIterations: 5}, Status: ralph.ChainFailed}}}
	if err := ld.SaveChain(cs); err != nil {
		t.Fatal(err)
	}
	r, err := On(mt.Machine).Resume("c", ralph.ResumeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if err := On(mt.Machine).WakeDriver("c", r); err != nil {
		t.Fatal(err)
	}
	if got, _ := ld.LoadChain(); got == nil || got.Status == ralph.ChainFailed {
		t.Errorf("chain %+v", got)
	}
	if len(mt.PanesOf(regent.Session)) != 1 {
		t.Errorf("keepers %q, want the Regent's", mt.PanesOf(regent.Session))
	}
}

// resumeAndWake resumes a loop and has it driven again, as the resume command does.
func resumeAndWake(mt *testMachine, ld ralph.Dir, name string) error {
	r, err := On(mt.Machine).Resume(name, ralph.ResumeRequest{})
	if err != nil {
		return err
	}
	return On(mt.Machine).WakeDriver(name, r)
}

// A monitor still alive when a failed loop is resumed had seen the loop end and is leaving:
// resume waits for it to go and starts another.
func TestWakeDriverTakesOverFromALeavingMonitor(t *testing.T) {
	mt := newTestMachine(t)
	ld := mt.SpawnLoop("f", ralph.State{Status: ralph.StatusFailed, ExitReason: "consecutive_failures", CurrentIteration: 2,
		ConsecutiveFailures: 5, Phase: ralph.PhaseEnded})
	release := testmachine.HoldMonitor(t, ld)
	done := make(chan error, 1)
	go func() { done <- resumeAndWake(mt, ld, "f") }()
	testmachine.Eventually(t, "the resume", func() bool { st, _ := ld.Load(); return st != nil && st.Status == ralph.StatusRunning })
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(mt.PanesOf(regent.Session)) != 1 {
		t.Errorf("keepers %q, want the Regent's", mt.PanesOf(regent.Session))
	}
}

// ... unless it read the state again after the resume and drives the loop on.
func TestWakeDriverLeavesTheLoopToAMonitorThatDrivesOn(t *testing.T) {
	mt := newTestMachine(t)
	ld := mt.SpawnLoop("f", ralph.State{Status: ralph.StatusFailed, ExitReason: "consecutive_failures", CurrentIteration: 2,
		Phase: ralph.PhaseEnded})
	testmachine.HoldMonitor(t, ld)
	done := make(chan error, 1)
	go func() { done <- resumeAndWake(mt, ld, "f") }()
	testmachine.Eventually(t, "the resume", func() bool { st, _ := ld.Load(); return st != nil && st.Status == ralph.StatusRunning })
	if _, err := ld.Update(func(s *ralph.State) error { s.BeginIteration(3, time.Now(), ""); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(mt.PanesOf(regent.Session)) != 0 {
		t.Error("a second monitor was started")
	}
}
