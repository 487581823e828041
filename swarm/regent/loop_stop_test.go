package regent

import (
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/worker"
)

func TestKillStopsTheLoopForGood(t *testing.T) {
	th := newTestHost(t)
	ld := th.loop("k", ralph.State{Status: ralph.StatusPaused, ExitReason: "paused"})
	StopLoopOnKill(th.Machine, "k")
	st := th.loopState(ld)
	if st.Status != ralph.StatusStopped || st.ExitReason != "killed" || ralph.ParseTime(st.Ended).IsZero() {
		t.Errorf("state %+v", st)
	}
	// A loop already over stays as it ended, and the kill is logged once.
	StopLoopOnKill(th.Machine, "k")
	if got := events(t, ld); !reflect.DeepEqual(got, []string{"[KILL] loop stopped by swarm kill"}) {
		t.Errorf("log %q", got)
	}
	StopLoopOnKill(th.Machine, "no-loop")
}

func TestCleanRemovesTheLoopUnlessItsMonitorRuns(t *testing.T) {
	th := newTestHost(t)
	ld := th.loop("c", ralph.State{Status: ralph.StatusStopped})
	release := holdMonitor(t, ld)
	th.RemoveLoop("c")
	if !ld.Exists() {
		t.Fatal("removed the loop of a running monitor")
	}
	start := time.Now()
	WaitMonitorGone(th.Machine, "c", 30*time.Millisecond)
	if time.Since(start) < 30*time.Millisecond {
		t.Error("did not wait for the monitor")
	}
	release()
	WaitMonitorGone(th.Machine, "c", time.Minute)
	th.RemoveLoop("c")
	if _, err := os.Stat(ld.Path); !os.IsNotExist(err) {
		t.Errorf("loop directory still there: %v", err)
	}
}

func TestKillEndsTheWorkerAfterItsLoop(t *testing.T) {
	th := newTestHost(t)
	ld := th.loop("w", ralph.State{Status: ralph.StatusRunning, CurrentIteration: 1})
	ws, _ := th.Dir().LoadWorkers(nil)
	w := ws.Get("w")
	if err := Kill(th.Machine, worker.KillTarget{Name: "w", Worker: w}, KillOptions{Grace: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if st := th.loopState(ld); st.Status != ralph.StatusStopped || st.ExitReason != "killed" {
		t.Errorf("loop %s (%s)", st.Status, st.ExitReason)
	}
	if _, ok := th.fake.Get(w.Tmux.PaneID); ok {
		t.Error("window left open")
	}
	// A loop whose worker record is gone is stopped by its name.
	gone := ralph.DirFor(th.Dir(), "gone")
	if err := gone.Create(&ralph.State{Status: ralph.StatusPaused}); err != nil {
		t.Fatal(err)
	}
	if err := Kill(th.Machine, worker.KillTarget{Name: "gone"}, KillOptions{}); err != nil {
		t.Fatal(err)
	}
	if st := th.loopState(gone); st.Status != ralph.StatusStopped {
		t.Errorf("loop without a worker %s", st.Status)
	}
}
