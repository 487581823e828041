package swarm

import (
	"os"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph"
)

// What kill and clean do to a worker's loop.

// stopLoopOnKill: killing a ralph worker stops its loop for good. When that cannot be
// recorded (a full disk), the kill is honoured all the same: the loop's keeper and monitor are
// ended, so nothing starts the next iteration once the disk has room again.
func stopLoopOnKill(e *env, name string) error {
	ld := ralph.DirFor(e.dir, name)
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
	return fail("cannot record that the loop of '%s' was killed (%v); its monitor was ended instead", name, err)
}

// endMonitor ends a loop's keeper (so it starts no new monitor) and its monitor.
func endMonitor(e *env, ld ralph.Dir, name string) {
	e = e.onServerOf(name)
	if panes, err := e.tm.Panes(); err == nil {
		for _, p := range panes {
			if p.Session == regentSession && p.WindowName == name {
				_ = e.tm.KillPane(p.ID)
			}
		}
	}
	if st, err := ld.Load(); err == nil && st.MonitorPID > 0 && e.procs.Alive(st.MonitorPID, 0) {
		_ = syscall.Kill(st.MonitorPID, syscall.SIGKILL)
	}
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
