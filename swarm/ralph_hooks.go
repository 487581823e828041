package swarm

import (
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/regent"
)

// What kill and clean do to a worker's loop.

// stopLoopOnKill: killing a ralph worker stops its loop for good. When that cannot be
// recorded (a full disk), the kill is honoured all the same: the loop's keeper and monitor are
// ended, and a mark any later reader honours (see ralph.Dir.MarkKilled) keeps it killed until it
// is recorded.
func stopLoopOnKill(e *env, name string) error {
	ld := ralph.DirFor(e.Dir(), name)
	if !ld.Exists() {
		return nil
	}
	_, _, err := ld.Transition(time.Now(), func(s *ralph.State) (ralph.Decision, error) {
		return ralph.Killed(s), nil
	})
	if err == nil {
		return nil
	}
	endMonitor(e, ld, name)
	if ld.MarkKilled() == nil {
		// Final all the same: every reader honours the mark.
		e.warnf("cannot record that the loop of '%s' was killed yet (%v); it stays killed, and is recorded once it can be", name, err)
		return nil
	}
	return fail("cannot record that the loop of '%s' was killed (%w); its monitor was ended instead", name, err)
}

// endMonitor stops whatever drives the loop: the Regent lets go of it (and does not take it
// up again), a monitor process of its own is ended.
func endMonitor(e *env, ld ralph.Dir, name string) {
	st, err := ld.Load()
	if err != nil || st.MonitorPID <= 0 || !e.Procs().Alive(st.MonitorPID, 0) {
		return
	}
	if rc := regent.NewClient(e.Dir()); st.MonitorPID == rc.PID() {
		_ = rc.Drop(name)
		return
	}
	_ = syscall.Kill(st.MonitorPID, syscall.SIGKILL)
}

// afterKill waits briefly for the loop's monitor to notice and leave.
func waitMonitorGone(e *env, name string, d time.Duration) {
	ld := ralph.DirFor(e.Dir(), name)
	deadline := time.Now().Add(d)
	for ld.MonitorAlive() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}
