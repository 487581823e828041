package loop

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/driver"
	"github.com/swarm-dev/swarm/ralph/proc"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/worker"
	"github.com/swarm-dev/swarm/tmux"
)

// One loop driven: the Regent drives every supervised loop of a state directory in one
// process (its daemon); a loop without the Regent, or one run in the foreground, has a monitor
// process of its own (monitor.go). Both drive it through Loops.Drive, on the same policy core.

// Drive is what a monitor, a process of its own or the Regent's, drives a loop with.
type Drive struct {
	Name        string
	Out, Detail io.Writer
	// Context, once cancelled, ends the agent at once and leaves the loop paused (an abort).
	Context context.Context
	// Resurrect: a background monitor counts a predecessor that died on the job as a
	// resurrection (and may give up on a loop that keeps killing its monitors).
	Resurrect bool
	// Regent: the Regent drives the loop (its crash loop is the daemon's, see its keeper).
	Regent bool
	// Tmux, when not nil, is the tmux client the loop uses instead of the machine's.
	Tmux tmux.Client
	// Relaxed: the agent's end is watched, not polled for, so the safety polls run seldom.
	Relaxed bool
	// Claimed, when not nil, is told that the loop was claimed (its state names this
	// process as its monitor).
	Claimed func()
}

// The Regent's polls: of an agent's process (its end is reported by the kernel; this is the
// safety net) and of a loop's files (inotify reports their changes), every relaxedPoll, so
// an idle loop wakes its Regent once a minute; of a screen that stays still, at most every
// relaxedScreenPoll (one that moves is looked at within moments, see ralph's watch).
const (
	relaxedPoll       = 60 * time.Second
	relaxedScreenPoll = 10 * time.Second
)

// NotifyFlush bounds the wait for a finished loop's notifications.
const NotifyFlush = 15 * time.Second

// Driver is the loop's driver as a monitor drives it, holding the loop's monitor lock (nil
// for one that only records: a crash, a crash loop).
func (l Loops) Driver(lock *state.Lock, d Drive) *driver.Loop {
	return driver.New(l.config(lock, d))
}

// config is the configuration a monitor drives the loop with.
func (l Loops) config(lock *state.Lock, d Drive) driver.Config {
	m := l.m
	tm := d.Tmux
	if tm == nil {
		tm = m.Tmux()
	}
	cfg := driver.Config{Name: d.Name, Dir: ralph.DirFor(m.Dir(), d.Name), Workers: m.Dir(), Tmux: tm, Procs: loopProcs{m.Procs()},
		Out: d.Out, Detail: d.Detail, RunWrapper: worker.RunWrapper(), Context: d.Context, MonitorLock: lock}
	cfg.Output = outputPiperFor(m.Tmux())
	cfg.PaneShell = true
	if d.Relaxed {
		cfg.ExitPoll, cfg.StatusPoll, cfg.ScreenPoll = relaxedPoll, relaxedPoll, relaxedScreenPoll
	}
	return cfg
}

// Drive runs the loop whose monitor lock the caller holds until it ends, pauses or is
// aborted. It returns the status it ended in ("" when the loop could not even be claimed) and
// the error that ended it.
func (l Loops) Drive(lock *state.Lock, d Drive) (ralph.Status, error) {
	ld := ralph.DirFor(l.m.Dir(), d.Name)
	prev, err := claimLoop(ld)
	if err != nil {
		return "", err
	}
	if d.Claimed != nil {
		d.Claimed()
	}
	defer Release(ld)
	loop := l.Driver(lock, d)
	// The loop's last notifications (it finished, it failed) go out before its monitor leaves,
	// the process of a foreground loop with it; a dead endpoint holds it up this long at most.
	defer loop.WaitNotifications(NotifyFlush)
	if d.Resurrect && prev.MonitorPID != 0 && prev.MonitorPID != os.Getpid() &&
		(prev.Status == ralph.StatusRunning || prev.Status == ralph.StatusWaiting) {
		if giveUp := loop.Resurrected(prev.MonitorPID, !d.Regent); giveUp {
			return ralph.StatusFailed, nil
		}
	}
	return loop.Run()
}

// claimLoop records this process as the loop's monitor and returns the state as it was, which
// tells whether an earlier monitor died on the job.
func claimLoop(ld ralph.Dir) (*ralph.State, error) {
	var prev ralph.State
	_, err := ld.Update(func(s *ralph.State) error {
		prev = *s
		s.MonitorPID = os.Getpid()
		return nil
	})
	return &prev, err
}

// Release leaves no pid of this process behind as the loop's monitor, when the monitor ends on
// purpose or a Regent leaves its loops to the next; a new monitor may have claimed the loop
// already, and keeps its own.
func Release(ld ralph.Dir) {
	me := os.Getpid()
	_, _ = ld.Update(func(s *ralph.State) error {
		if s.MonitorPID == me {
			s.MonitorPID = 0
		}
		return nil
	})
}

// loopProcs gives a loop the machine's process table.
type loopProcs struct{ t worker.ProcessTable }

func (p loopProcs) Alive(pid int) bool                      { return p.t.Alive(pid, 0) }
func (p loopProcs) KillGroup(pgid int, grace time.Duration) { p.t.KillGroup(pgid, grace) }

// Exited watches a real process's end without polling (a fake process table cannot).
func (p loopProcs) Exited(pid int) (<-chan struct{}, func()) {
	if _, ok := p.t.(worker.OSProcesses); ok {
		return proc.Exited(pid)
	}
	return nil, func() {}
}

func (p loopProcs) KillTagged(tag string, mark int, grace time.Duration) int {
	return p.t.KillTagged(tag, mark, grace)
}

func (p loopProcs) Mark() int { return p.t.Mark() }

// waitFor polls cond until it holds or d has passed.
func waitFor(d time.Duration, cond func() bool) {
	deadline := time.Now().Add(d)
	for !cond() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}
