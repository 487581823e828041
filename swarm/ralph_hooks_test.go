package swarm

import (
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
)

func TestKillStopsTheLoopForGood(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("k", ralph.State{Status: ralph.StatusPaused, ExitReason: "paused"})
	stopLoopOnKill(te.env, "k")
	st := te.loopState(ld)
	if st.Status != ralph.StatusStopped || st.ExitReason != "killed" || ralph.ParseTime(st.Ended).IsZero() {
		t.Errorf("state %+v", st)
	}
	// A loop already over stays as it ended, and the kill is logged once.
	stopLoopOnKill(te.env, "k")
	if got := events(t, ld); !reflect.DeepEqual(got, []string{"[KILL] loop stopped by swarm kill"}) {
		t.Errorf("log %q", got)
	}
	stopLoopOnKill(te.env, "no-loop")
}

func TestCleanRemovesTheLoopUnlessItsMonitorRuns(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("c", ralph.State{Status: ralph.StatusStopped})
	release := holdMonitor(t, ld)
	te.RemoveLoop("c")
	if !ld.Exists() {
		t.Fatal("removed the loop of a running monitor")
	}
	start := time.Now()
	waitMonitorGone(te.env, "c", 30*time.Millisecond)
	if time.Since(start) < 30*time.Millisecond {
		t.Error("did not wait for the monitor")
	}
	release()
	waitMonitorGone(te.env, "c", time.Minute)
	te.RemoveLoop("c")
	if _, err := os.Stat(ld.Path); !os.IsNotExist(err) {
		t.Errorf("loop directory still there: %v", err)
	}
}
