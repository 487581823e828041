package loop

import (
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/internal/testmachine"
	"github.com/swarm-dev/swarm/swarm/worker"
)

func TestKillStopsTheLoopForGood(t *testing.T) {
	mt := newTestMachine(t)
	ld := mt.SpawnLoop("k", ralph.State{Status: ralph.StatusPaused, ExitReason: "paused"})
	On(mt.Machine).StopOnKill("k")
	st := testmachine.LoopState(t, ld)
	if st.Status != ralph.StatusStopped || st.ExitReason != "killed" || ralph.ParseTime(st.Ended).IsZero() {
		t.Errorf("state %+v", st)
	}
	// A loop already over stays as it ended, and the kill is logged once.
	On(mt.Machine).StopOnKill("k")
	if got := testmachine.Events(t, ld); !reflect.DeepEqual(got, []string{"[KILL] loop stopped by swarm kill"}) {
		t.Errorf("log %q", got)
	}
	On(mt.Machine).StopOnKill("no-loop")
}

func TestCleanRemovesTheLoopUnlessItsMonitorRuns(t *testing.T) {
	mt := newTestMachine(t)
	ld := mt.SpawnLoop("c", ralph.State{Status: ralph.StatusStopped})
	release := testmachine.HoldMonitor(t, ld)
	mt.RemoveLoop("c")
	if !ld.Exists() {
		t.Fatal("removed the loop of a running monitor")
	}
	start := time.Now()
	On(mt.Machine).WaitMonitorGone("c", 30*time.Millisecond)
	if time.Since(start) < 30*time.Millisecond {
		t.Error("did not wait for the monitor")
	}
	release()
	On(mt.Machine).WaitMonitorGone("c", time.Minute)
	mt.RemoveLoop("c")
	if _, err := os.Stat(ld.Path); !os.IsNotExist(err) {
		t.Errorf("loop directory still there: %v", err)
	}
}

func TestKillEndsTheWorkerAfterItsLoop(t *testing.T) {
	mt := newTestMachine(t)
	ld := mt.SpawnLoop("w", ralph.State{Status: ralph.StatusRunning, CurrentIteration: 1})
	ws, _ := mt.Dir().LoadWorkers(nil)
	w := ws.Get("w")
	if err := On(mt.Machine).Kill(worker.KillTarget{Name: "w", Worker: w}, KillOptions{Grace: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if st := testmachine.LoopState(t, ld); st.Status != ralph.StatusStopped || st.ExitReason != "killed" {
		t.Errorf("loop %s (%s)", st.Status, st.ExitReason)
	}
	if _, ok := mt.Fake.Get(w.Tmux.PaneID); ok {
		t.Error("window left open")
	}
	// A loop whose worker record is gone is stopped by its name.
	gone := ralph.DirFor(mt.Dir(), "gone")
	if err := gone.Create(&ralph.State{Status: ralph.StatusPaused}); err != nil {
		t.Fatal(err)
	}
	if err := On(mt.Machine).Kill(worker.KillTarget{Name: "gone"}, KillOptions{}); err != nil {
		t.Fatal(err)
	}
	if st := testmachine.LoopState(t, gone); st.Status != ralph.StatusStopped {
		t.Errorf("loop without a worker %s", st.Status)
	}
}
