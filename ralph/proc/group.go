package proc

import (
	"errors"
	"slices"
	"syscall"
	"time"
)

// GroupAlive reports whether any non-zombie process remains in process group pgid. Zombies
// are ignored: an orphan that init has not reaped yet no longer runs anything.
func GroupAlive(pgid int) bool { return (&groupWatch{pgid: pgid}).alive() }

// groupWatch asks again and again whether a group still runs (while it is waited for) and
// looks through /proc only when what it knows cannot tell: while its leader, or a member seen
// running at the last look, still runs, the group does. Only a look through /proc that finds
// none says it is gone (a member may have started another before it ended).
//
// A watch that is asked again (patient) also waits a moment for a leader that has ended to be
// collected by its parent: until then the kernel counts the group as there, and once it is
// collected the kernel alone says whether anything is left, without the look through /proc
// (hundreds of files with fifty loops' agents about).
type groupWatch struct {
	pgid    int
	members []int
	patient bool
	zombie  time.Time // when the leader was first seen ended but not yet collected
}

// reapWait is how long a patient watch waits for an ended leader to be collected. It is
// short: tmux (3.3a at least) has been seen to leave a pane's ended process uncollected until
// the pane's next respawn.
const reapWait = 25 * time.Millisecond

func (g *groupWatch) alive() bool {
	if g.pgid <= 0 {
		return false
	}
	if !g.exists() {
		return false
	}
	if g.runs(g.pgid) || slices.ContainsFunc(g.members, g.runs) {
		return true
	}
	if g.patient && g.leaderUncollected() {
		return true
	}
	// The leader may have been collected a moment ago: the kernel is asked again first.
	if !g.exists() {
		return false
	}
	g.members = g.members[:0]
	for _, pid := range listPIDs() {
		if g.runs(pid) {
			g.members = append(g.members, pid)
		}
	}
	return len(g.members) > 0
}

// exists asks the kernel whether any process (a zombie too) is in the group.
func (g *groupWatch) exists() bool {
	err := syscall.Kill(-g.pgid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// leaderUncollected reports a leader that has ended but is still a zombie, for up to
// reapWait from when it was first seen so.
func (g *groupWatch) leaderUncollected() bool {
	letter, pg, _, ok := Stat(g.pgid)
	if !ok || pg != g.pgid || letter != 'Z' {
		return false
	}
	if g.zombie.IsZero() {
		g.zombie = time.Now()
	}
	return time.Since(g.zombie) < reapWait
}

// runs reports a process of the group that is not a zombie.
func (g *groupWatch) runs(pid int) bool {
	letter, pg, _, ok := Stat(pid)
	return ok && pg == g.pgid && letter != 'Z' && letter != 'X'
}

// KillGroup ends a whole process group: SIGTERM, up to grace for it to go, then SIGKILL. It
// returns once no process of the group is left (or a short while after SIGKILL), reporting
// whether SIGKILL was needed.
func KillGroup(pgid int, grace time.Duration) bool {
	if pgid <= 1 || !(&groupWatch{pgid: pgid, patient: true}).alive() {
		return false
	}
	// The leader's end is told by the kernel: the group is looked at again at once then.
	leaderExit, release := Exited(pgid)
	defer release()
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	// A stopped process never handles SIGTERM until continued.
	_ = syscall.Kill(-pgid, syscall.SIGCONT)
	if waitGroupGone(pgid, grace, leaderExit) {
		return false
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	WaitGroupGone(pgid, 3*time.Second)
	return true
}

// WaitGroupGone waits up to d for the group to end and reports whether it did.
func WaitGroupGone(pgid int, d time.Duration) bool { return waitGroupGone(pgid, d, nil) }

// waitGroupGone looks at the group again after a growing pause, or as soon as leaderExit is
// closed (when the leader's end can be watched).
func waitGroupGone(pgid int, d time.Duration, leaderExit <-chan struct{}) bool {
	deadline := time.Now().Add(d)
	delay := 5 * time.Millisecond
	g := &groupWatch{pgid: pgid, patient: true}
	for {
		if !g.alive() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		pause := time.NewTimer(delay)
		select {
		case <-leaderExit:
			leaderExit = nil // told once
		case <-pause.C:
			if delay < 50*time.Millisecond {
				delay *= 2
			}
		}
		pause.Stop()
	}
}
