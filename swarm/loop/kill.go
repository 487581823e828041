package loop

import (
	"fmt"
	"slices"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// A kill stops a worker's loop for good before it ends the worker, so the loop does not start
// the next iteration in the window being closed, and ends whatever drives the loop.

// KillOptions say how a worker is killed.
type KillOptions struct {
	Grace      time.Duration // between SIGTERM and SIGKILL
	RmWorktree bool          // also remove its worktree (kept when dirty unless ForceDirty)
	ForceDirty bool
}

// Kill stops t's loop for good, then its processes and heartbeat, and removes its worktree
// when asked. Every part is done even when one fails; the error is the last failure.
func (l Loops) Kill(t worker.KillTarget, o KillOptions) error {
	return l.KillAll([]worker.KillTarget{t}, o)[0]
}

// KillAll is Kill of many targets, ended together: every loop is stopped first, then every
// worker's processes are signalled at once and waited for within the one grace, and their
// monitors within one time limit, so a hundred take about as long as one. It returns each
// target's error.
func (l Loops) KillAll(ts []worker.KillTarget, o KillOptions) []error {
	m := l.m
	errs := make([]error, len(ts))
	names := make([]string, len(ts))
	var ws []*state.Worker
	var at []int // the index in ts of each of ws
	for i, t := range ts {
		errs[i], names[i] = l.StopOnKill(t.Name), t.Name
		if t.Worker != nil {
			ws, at = append(ws, t.Worker), append(at, i)
		}
	}
	for j, err := range m.StopAll(ws, o.Grace) {
		if err != nil {
			errs[at[j]] = err
		}
	}
	for _, w := range ws {
		stopHeartbeat(m, w.Name)
	}
	l.waitMonitorsGone(names, 5*time.Second)
	for _, w := range ws {
		if o.RmWorktree && w.Worktree != nil && m.RemoveWorktree(w.Worktree, o.ForceDirty) {
			forgetWorktree(m, w.Name)
		}
	}
	return errs
}

// forgetWorktree records that the worker's worktree was removed.
func forgetWorktree(m *worker.Machine, name string) {
	_ = m.Dir().UpdateWorkers(func(err error) { m.Warnf("%v", err) }, func(all *state.Workers) error {
		if cur := all.Get(name); cur != nil {
			cur.Worktree = nil
		}
		return nil
	})
}

// StopOnKill: killing a ralph worker stops its loop for good. When that cannot be
// recorded (a full disk), the kill is honoured all the same: the loop's keeper and monitor are
// ended, and a mark any later reader honours (see ralph.Dir.MarkKilled) keeps it killed until it
// is recorded.
func (l Loops) StopOnKill(name string) error {
	m := l.m
	ld := ralph.DirFor(m.Dir(), name)
	if !ld.Exists() {
		return nil
	}
	_, _, err := ld.Transition(time.Now(), func(s *ralph.State) (ralph.Decision, error) {
		return ralph.Killed(s), nil
	})
	if err == nil {
		return nil
	}
	endMonitor(m, ld, name)
	if ld.MarkKilled() == nil {
		// Final all the same: every reader honours the mark.
		m.Warnf("cannot record that the loop of '%s' was killed yet (%v); it stays killed, and is recorded once it can be", name, err)
		return nil
	}
	return fmt.Errorf("cannot record that the loop of '%s' was killed (%w); its monitor was ended instead", name, err)
}

// endMonitor stops whatever drives the loop: the Regent lets go of it (and does not take it
// up again), a monitor process of its own is ended.
func endMonitor(m *worker.Machine, ld ralph.Dir, name string) {
	st, err := ld.Load()
	if err != nil || st.MonitorPID <= 0 || !m.Procs().Alive(st.MonitorPID, 0) {
		return
	}
	if rc := regent.NewClient(m.Dir()); st.MonitorPID == rc.PID() {
		_ = rc.Drop(name)
		return
	}
	_ = syscall.Kill(st.MonitorPID, syscall.SIGKILL)
}

// WaitMonitorGone waits up to d for the loop's monitor to notice the loop ended and leave.
func (l Loops) WaitMonitorGone(name string, d time.Duration) {
	l.waitMonitorsGone([]string{name}, d)
}

// waitMonitorsGone waits up to d in all for the loops' monitors to leave.
func (l Loops) waitMonitorsGone(names []string, d time.Duration) {
	m := l.m
	deadline := time.Now().Add(d)
	left := make([]ralph.Dir, 0, len(names))
	for _, name := range names {
		left = append(left, ralph.DirFor(m.Dir(), name))
	}
	for {
		left = slices.DeleteFunc(left, func(ld ralph.Dir) bool { return !ld.MonitorAlive() })
		if len(left) == 0 || time.Now().After(deadline) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
