package regent

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
)

func TestPauseLoop(t *testing.T) {
	th := newTestHost(t)
	ld := th.loop("p", ralph.State{Status: ralph.StatusRunning, CurrentIteration: 1})
	if err := PauseLoop(ld); err != nil {
		t.Fatal(err)
	}
	if st := th.loopState(ld); st.Status != ralph.StatusPaused || st.ExitReason != "paused" {
		t.Errorf("state %s (%s)", st.Status, st.ExitReason)
	}
	if err := PauseLoop(ld); !errors.Is(err, ralph.ErrUnchanged) {
		t.Errorf("paused again: %v", err)
	}
	if got := events(t, ld); !reflect.DeepEqual(got, []string{"[PAUSE] paused by user"}) {
		t.Errorf("log %q", got)
	}
	f := th.loop("f", ralph.State{Status: ralph.StatusFailed})
	if err := PauseLoop(f); !errors.Is(err, ralph.ErrNotRunning) {
		t.Errorf("paused a failed loop: %v", err)
	}
}

func TestResumeLoopStartsItsMonitor(t *testing.T) {
	th := newTestHost(t)
	ld := th.loop("p", ralph.State{Status: ralph.StatusPaused, ExitReason: "paused", CurrentIteration: 2, Phase: ralph.PhaseWorking})
	r, err := ResumeLoop(ld, ralph.ResumeRequest{})
	if err != nil || r.LimitOnly || r.State.Status != ralph.StatusRunning {
		t.Fatalf("resumed %+v, error %v", r, err)
	}
	if err := WakeDriver(th.Machine, "p", r); err != nil {
		t.Fatal(err)
	}
	if len(th.keepers()) != 1 {
		t.Errorf("keepers %q, want the Regent's", th.keepers())
	}
}

func TestResumeLoopOnlyRaisesTheLimitOfARunningLoop(t *testing.T) {
	th := newTestHost(t)
	ld := th.loop("m", ralph.State{Status: ralph.StatusRunning, CurrentIteration: 2, Phase: ralph.PhaseWorking})
	holdMonitor(t, ld)
	r, err := ResumeLoop(ld, ralph.ResumeRequest{MaxIterations: 9})
	if err != nil || !r.LimitOnly || r.State.MaxIterations != 9 {
		t.Fatalf("resumed %+v, error %v", r, err)
	}
	if err := WakeDriver(th.Machine, "m", r); err != nil || len(th.keepers()) != 0 {
		t.Errorf("error %v, keepers %q", err, th.keepers())
	}
}

func TestResumeLoopRefusesAKilledLoop(t *testing.T) {
	th := newTestHost(t)
	ld := th.loop("k", ralph.State{Status: ralph.StatusStopped, ExitReason: "killed"})
	if _, err := ResumeLoop(ld, ralph.ResumeRequest{}); !errors.Is(err, ErrKilled) {
		t.Errorf("error %v", err)
	}
	if st := th.loopState(ld); st.Status != ralph.StatusStopped {
		t.Errorf("state %s", st.Status)
	}
}

// A failed chain goes on from the step it stopped at, and the loop gets a monitor.
func TestResumeLoopOfAFailedChain(t *testing.T) {
	th := newTestHost(t)
	ld := th.loop("c", ralph.State{Status: ralph.StatusFailed, ExitReason: "consecutive_failures", CurrentIteration: 2})
	cs := &ralph.ChainState{Status: ralph.ChainFailed, Steps: []ralph.ChainStepState{{ChainStep: ralph.ChainStep{Agent: "a", MaxIterations: 5}, Status: ralph.ChainFailed}}}
	if err := ld.SaveChain(cs); err != nil {
		t.Fatal(err)
	}
	r, err := ResumeLoop(ld, ralph.ResumeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if err := WakeDriver(th.Machine, "c", r); err != nil {
		t.Fatal(err)
	}
	if got, _ := ld.LoadChain(); got == nil || got.Status == ralph.ChainFailed {
		t.Errorf("chain %+v", got)
	}
	if len(th.keepers()) != 1 {
		t.Errorf("keepers %q, want the Regent's", th.keepers())
	}
}

// resumeAndWake resumes a loop and has it driven again, as the resume command does.
func resumeAndWake(th *testHost, ld ralph.Dir, name string) error {
	r, err := ResumeLoop(ld, ralph.ResumeRequest{})
	if err != nil {
		return err
	}
	return WakeDriver(th.Machine, name, r)
}

// A monitor still alive when a failed loop is resumed had seen the loop end and is leaving:
// resume waits for it to go and starts another.
func TestWakeDriverTakesOverFromALeavingMonitor(t *testing.T) {
	th := newTestHost(t)
	ld := th.loop("f", ralph.State{Status: ralph.StatusFailed, ExitReason: "consecutive_failures", CurrentIteration: 2,
		ConsecutiveFailures: 5, Phase: ralph.PhaseEnded})
	release := holdMonitor(t, ld)
	done := make(chan error, 1)
	go func() { done <- resumeAndWake(th, ld, "f") }()
	eventually(t, "the resume", func() bool { st, _ := ld.Load(); return st != nil && st.Status == ralph.StatusRunning })
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(th.keepers()) != 1 {
		t.Errorf("keepers %q, want the Regent's", th.keepers())
	}
}

// ... unless it read the state again after the resume and drives the loop on.
func TestWakeDriverLeavesTheLoopToAMonitorThatDrivesOn(t *testing.T) {
	th := newTestHost(t)
	ld := th.loop("f", ralph.State{Status: ralph.StatusFailed, ExitReason: "consecutive_failures", CurrentIteration: 2,
		Phase: ralph.PhaseEnded})
	holdMonitor(t, ld)
	done := make(chan error, 1)
	go func() { done <- resumeAndWake(th, ld, "f") }()
	eventually(t, "the resume", func() bool { st, _ := ld.Load(); return st != nil && st.Status == ralph.StatusRunning })
	if _, err := ld.Update(func(s *ralph.State) error { s.BeginIteration(3, time.Now(), ""); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(th.keepers()) != 0 {
		t.Error("a second monitor was started")
	}
}
