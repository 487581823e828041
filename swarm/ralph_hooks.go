package swarm

import (
	"os"
	"time"

	"github.com/swarm-dev/swarm/ralph"
)

// What kill and clean do to a worker's loop.

// stopLoopOnKill: killing a ralph worker stops its loop for good.
func stopLoopOnKill(e *env, name string) {
	ld := ralph.DirFor(e.dir, name)
	if !ld.Exists() {
		return
	}
	_, _, _ = ld.Transition(time.Now(), func(s *ralph.State) (ralph.Decision, error) {
		return ralph.Killed(s), nil
	})
}

// afterKill waits briefly for the loop's monitor to notice and leave.
func waitMonitorGone(e *env, name string, d time.Duration) {
	ld := ralph.DirFor(e.dir, name)
	deadline := time.Now().Add(d)
	for ld.MonitorAlive() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}

func removeLoopOnClean(e *env, name string) {
	ld := ralph.DirFor(e.dir, name)
	if ld.MonitorAlive() {
		return
	}
	_ = os.RemoveAll(ld.Path)
}
