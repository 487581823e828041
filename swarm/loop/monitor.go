package loop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/swarm/worker"
	"github.com/swarm-dev/swarm/tmux"
)

// A loop's own monitor: a loop without the Regent, or one run in the foreground, is driven by
// a process of its own, through Loops.Drive as the Regent drives its loops.

// ErrMonitorBusy is why a foreground monitor cannot drive a loop: another monitor does.
var ErrMonitorBusy = errors.New("a monitor is already running the loop")

// Monitor is one run of a loop's monitor in this process.
type Monitor struct {
	Name string
	// Out gets the loop's messages in the foreground. A background monitor writes them to the
	// loop's monitor.log with timestamps instead.
	Out io.Writer
	// Foreground, when set, runs the loop in this terminal: called once this monitor holds
	// the loop, it gives the writers the loop's messages and what its checkers and hooks print
	// go to (the caller closes them once RunMonitor returned). A foreground monitor counts no
	// resurrection, and one that finds the loop driven already fails (ErrMonitorBusy).
	Foreground func(ld ralph.Dir) (out, detail io.Writer)
}

// RunMonitor drives the loop in this process until it ends, and returns the status it ended in
// ("" when it was not driven here). An error that ended a loop it did drive is said on the
// loop's output, not returned.
func (l Loops) RunMonitor(m Monitor) (ralph.Status, error) {
	machine := l.m
	if err := worker.ValidateName(m.Name); err != nil {
		return "", err
	}
	ld := ralph.DirFor(machine.Dir(), m.Name)
	out := MonitorLog(ld)
	if m.Foreground != nil {
		out = m.Out
	}
	lock, ok, err := state.TryLock(ld.MonitorLockPath())
	if err != nil {
		return "", err
	}
	if !ok {
		if m.Foreground != nil {
			return "", fmt.Errorf("%w for '%s'", ErrMonitorBusy, m.Name)
		}
		// Another monitor drives the loop: it is in hand.
		return "", nil
	}
	defer lock.Unlock()
	// The loop's context ends with this monitor; a signal cancels it sooner (an abort).
	ctx, abort := context.WithCancel(context.Background())
	defer abort()
	detail := out
	if m.Foreground != nil {
		out, detail = m.Foreground(ld)
	}
	defer pauseOnSignals(m.Name, ld, out, abort)()
	status, err := l.Drive(lock, Drive{Name: m.Name, Out: out, Detail: detail, Context: ctx, Resurrect: m.Foreground == nil})
	if err != nil {
		fmt.Fprintf(out, "swarm: error: %v\n", err)
		if status == "" {
			return "", err
		}
	}
	return status, nil
}

// StartMonitor has the loop driven: by the Regent when the loop is supervised, otherwise by
// a detached monitor process of its own. Either is started from swarm's own executable, never
// a relative path, and the loop's lines go to its monitor.log. It returns once the loop's
// monitor holds its lock (or has already finished), so the caller's next command sees it.
func (l Loops) StartMonitor(name string) error {
	m := l.m.OnServerOf(name)
	ld := ralph.DirFor(m.Dir(), name)
	if st, err := ld.Load(); err != nil || ralph.EffectiveSupervision(st.Supervision).Enabled {
		if err := regent.Ensure(m); err != nil {
			return err
		}
		// Until the Regent has claimed the loop (its pid on record), so the caller's next
		// command, a signal to the monitor say, reaches it.
		waitFor(5*time.Second, func() bool {
			return claimedByRegent(m, ld) || !regent.NeedsMonitor(ld) || !regent.NewClient(m.Dir()).Alive()
		})
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	argv := []string{exe, "--swarm-dir", m.Dir().Root, "--tmux-socket", m.Tmux().Socket(), "ralph", "__monitor", name}
	pid, err := startDetachedMonitor(ld, argv)
	if err != nil {
		return err
	}
	waitFor(5*time.Second, func() bool { return ld.MonitorAlive() || !m.Procs().Alive(pid, 0) })
	return nil
}

// claimedByRegent reports whether the Regent drives the loop and has its pid on record.
func claimedByRegent(m *worker.Machine, ld ralph.Dir) bool {
	st, err := ld.Load()
	return err == nil && ld.MonitorAlive() && st.MonitorPID != 0 && st.MonitorPID == regent.NewClient(m.Dir()).PID()
}

func startDetachedMonitor(ld ralph.Dir, argv []string) (int, error) {
	logf, err := os.OpenFile(ld.MonitorLog(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return 0, err
	}
	defer logf.Close()
	return worker.StartDetached(argv, "/", tmux.FilterEnv(os.Environ()), logf, logf)
}
