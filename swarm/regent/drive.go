package regent

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
// process (daemon.go); a loop without the Regent, or one run in the foreground, has a monitor
// process of its own (monitor.go). Both drive it through driveLoop, on the same policy core.

// loopDrive is what a monitor, a process of its own or the Regent's, drives a loop with.
type loopDrive struct {
	name        string
	out, detail io.Writer
	// ctx, once cancelled, ends the agent at once and leaves the loop paused (an abort).
	ctx context.Context
	// resurrect: a background monitor counts a predecessor that died on the job as a
	// resurrection (and may give up on a loop that keeps killing its monitors).
	resurrect bool
	// regent: the Regent drives the loop (its crash loop is the daemon's, see Keep).
	regent bool
	// tm, when not nil, is the tmux client the loop uses instead of the host's.
	tm tmux.Client
	// relaxed: the agent's end is watched, not polled for, so the safety polls run seldom.
	relaxed bool
	// claimed, when not nil, is told that the loop was claimed (its state names this
	// process as its monitor).
	claimed func()
}

// The Regent's polls: of an agent's process (its end is reported by the kernel; this is the
// safety net) and of a loop's files (inotify reports their changes), every relaxedPoll, so
// an idle loop wakes its Regent once a minute; of a screen that stays still, at most every
// relaxedScreenPoll (one that moves is looked at within moments, see ralph's watch).
const (
	relaxedPoll       = 60 * time.Second
	relaxedScreenPoll = 10 * time.Second
)

// notifyFlush bounds the wait for a finished loop's notifications.
const notifyFlush = 15 * time.Second

// loopConfig is the configuration a monitor drives the loop with.
func loopConfig(m *worker.Machine, lock *state.Lock, d loopDrive) driver.Config {
	tm := d.tm
	if tm == nil {
		tm = m.Tmux()
	}
	cfg := driver.Config{Name: d.name, Dir: ralph.DirFor(m.Dir(), d.name), Workers: m.Dir(), Tmux: tm, Procs: loopProcs{m.Procs()},
		Out: d.out, Detail: d.detail, RunWrapper: worker.RunWrapper(), Context: d.ctx, MonitorLock: lock}
	cfg.Output = outputPiperFor(m.Tmux())
	cfg.Host = true
	if d.relaxed {
		cfg.ExitPoll, cfg.StatusPoll, cfg.ScreenPoll = relaxedPoll, relaxedPoll, relaxedScreenPoll
	}
	return cfg
}

// driveLoop runs the loop whose monitor lock the caller holds until it ends, pauses or is
// aborted. It returns the status it ended in ("" when the loop could not even be claimed) and
// the error that ended it.
func driveLoop(m *worker.Machine, lock *state.Lock, d loopDrive) (ralph.Status, error) {
	ld := ralph.DirFor(m.Dir(), d.name)
	prev, err := claimLoop(ld)
	if err != nil {
		return "", err
	}
	if d.claimed != nil {
		d.claimed()
	}
	defer releaseLoop(ld)
	loop := driver.New(loopConfig(m, lock, d))
	// The loop's last notifications (it finished, it failed) go out before its monitor leaves,
	// the process of a foreground loop with it; a dead endpoint holds it up this long at most.
	defer loop.WaitNotifications(notifyFlush)
	if d.resurrect && prev.MonitorPID != 0 && prev.MonitorPID != os.Getpid() &&
		(prev.Status == ralph.StatusRunning || prev.Status == ralph.StatusWaiting) {
		if giveUp := loop.Resurrected(prev.MonitorPID, !d.regent); giveUp {
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

// releaseLoop leaves no pid behind when the monitor ends on purpose; a new monitor may have
// claimed the loop already, and keeps its own.
func releaseLoop(ld ralph.Dir) {
	me := os.Getpid()
	_, _ = ld.Update(func(s *ralph.State) error {
		if s.MonitorPID == me {
			s.MonitorPID = 0
		}
		return nil
	})
}

// NeedsMonitor reports whether the loop, as it is on disk, needs a monitor (see needsMonitor).
func NeedsMonitor(ld ralph.Dir) bool {
	st, err := ld.Load()
	return err == nil && needsMonitor(ld, st)
}

// needsMonitor: the loop is running, waiting, between the loops of its sequence, or paused
// while the iteration it was paused in still runs (its agent is watched until it ends).
func needsMonitor(ld ralph.Dir, st *ralph.State) bool {
	return st.Status == ralph.StatusRunning || st.Status == ralph.StatusWaiting || ld.SequencePending(st) ||
		st.Status == ralph.StatusPaused && st.Phase.Underway()
}

// needsRegent reports whether the loop is the Regent's to drive now: supervised and in need
// of a monitor.
func needsRegent(ld ralph.Dir) bool {
	st, err := ld.Load()
	return err == nil && regentDrives(ld, st)
}

// regentDrives is needsRegent for a loop whose state st is already read.
func regentDrives(ld ralph.Dir, st *ralph.State) bool {
	return ralph.EffectiveSupervision(st.Supervision).Enabled && needsMonitor(ld, st)
}

// loopProcs gives a loop the host's process table.
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
