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
	if alive, known := g.quick(); known {
		return alive
	}
	g.members = scanGroups(map[int]bool{g.pgid: true})[g.pgid]
	return len(g.members) > 0
}

// quick is alive where it can tell without a look through /proc (known false otherwise).
func (g *groupWatch) quick() (alive, known bool) {
	if g.pgid <= 0 || !g.exists() {
		return false, true
	}
	if g.runs(g.pgid) || slices.ContainsFunc(g.members, g.runs) {
		return true, true
	}
	if g.patient && g.leaderUncollected() {
		return true, true
	}
	// The leader may have been collected a moment ago: the kernel is asked again first.
	if !g.exists() {
		return false, true
	}
	return false, false
}

// scanGroups looks through /proc once for the running members of the groups pgids.
func scanGroups(pgids map[int]bool) map[int][]int {
	out := map[int][]int{}
	for _, pid := range listPIDs() {
		letter, pg, _, ok := Stat(pid)
		if ok && pgids[pg] && letter != 'Z' && letter != 'X' {
			out[pg] = append(out[pg], pid)
		}
	}
	return out
}

// stillAlive keeps those of the indices which whose group still runs, in order, with one look
// through /proc for all the groups their watches cannot tell about.
func stillAlive(watches map[int]*groupWatch, which []int) []int {
	var out, unsure []int
	for _, i := range which {
		switch alive, known := watches[i].quick(); {
		case !known:
			unsure = append(unsure, i)
		case alive:
			out = append(out, i)
		}
	}
	if len(unsure) == 0 {
		return out
	}
	set := make(map[int]bool, len(unsure))
	for _, i := range unsure {
		set[watches[i].pgid] = true
	}
	members := scanGroups(set)
	for _, i := range unsure {
		if w := watches[i]; len(members[w.pgid]) > 0 {
			w.members = members[w.pgid]
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
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
func KillGroup(pgid int, grace time.Duration) bool { return KillGroups([]int{pgid}, grace)[0] }

// killWaitGroups is how long the groups SIGKILL was sent to are waited for.
const killWaitGroups = 3 * time.Second

// KillGroups is KillGroup of many groups at once: every group is sent SIGTERM first, then all
// are waited for together, within the one grace, and SIGKILL goes to those still there. Ending
// a hundred groups takes about as long as ending the slowest of them, not the sum. It reports,
// for each group, whether SIGKILL was needed.
func KillGroups(pgids []int, grace time.Duration) []bool {
	forced := make([]bool, len(pgids))
	watches := map[int]*groupWatch{}
	var which []int // indices into pgids, one for each group
	for i, pgid := range pgids {
		if pgid > 1 && !slices.Contains(pgids[:i], pgid) {
			watches[i] = &groupWatch{pgid: pgid, patient: true}
			which = append(which, i)
		}
	}
	live := stillAlive(watches, which)
	if len(live) == 0 {
		return forced
	}
	// A leader's end is told by the kernel: the groups are looked at again at once then.
	wake := make(chan struct{}, 1)
	for _, i := range live {
		exited, release := Exited(pgids[i])
		defer release()
		if exited != nil {
			go func() {
				<-exited
				select {
				case wake <- struct{}{}:
				default:
				}
			}()
		}
	}
	for _, i := range live {
		_ = syscall.Kill(-pgids[i], syscall.SIGTERM)
		// A stopped process never handles SIGTERM until continued.
		_ = syscall.Kill(-pgids[i], syscall.SIGCONT)
	}
	left := waitGroupsGone(watches, live, grace, wake)
	for _, i := range left {
		_ = syscall.Kill(-pgids[i], syscall.SIGKILL)
		forced[i] = true
	}
	waitGroupsGone(watches, left, killWaitGroups, nil)
	return forced
}

// waitGroupsGone waits up to d for the groups of the indices which (watched by watches) to
// end, looking at those left after a growing pause, or as soon as wake says a leader ended. It
// returns the indices of the groups still there.
func waitGroupsGone(watches map[int]*groupWatch, which []int, d time.Duration, wake <-chan struct{}) []int {
	deadline := time.Now().Add(d)
	delay := 5 * time.Millisecond
	left := which
	for {
		left = stillAlive(watches, left)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		pause := time.NewTimer(min(delay, time.Until(deadline)))
		select {
		case <-wake:
		case <-pause.C:
			if delay < 50*time.Millisecond {
				delay *= 2
			}
		}
		pause.Stop()
	}
}
