package swarm

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/proc"
	"github.com/swarm-dev/swarm/tmux"
)

// The loop's background processes: the monitor that drives a loop, and the keeper that
// restarts a monitor that dies.

// runWrapper is swarm's own process wrapper (swarm __run), started by absolute path.
func runWrapper() []string {
	exe, err := os.Executable()
	if err != nil {
		exe = "swarm"
	}
	return []string{exe, "__run"}
}

// timestamped prefixes every line written to a detached monitor's log with the time.
type timestamped struct{ w io.Writer }

func (t timestamped) Write(p []byte) (int, error) {
	ts := time.Now().Format("2006-01-02T15:04:05") + " "
	lines := strings.SplitAfter(string(p), "\n")
	var b strings.Builder
	for _, l := range lines {
		if l == "" {
			continue
		}
		b.WriteString(ts + l)
	}
	if _, err := io.WriteString(t.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

func appendMonitorLog(ld ralph.Dir, line string) {
	_ = state.AppendLine(ld.MonitorLog(), time.Now().Format("2006-01-02T15:04:05")+" "+line)
}

// regentSession hosts the loops' monitors on swarm's private tmux server. tmux restarts a
// monitor whose process dies (see tmux.ReviveOnDeath), which is how a supervised loop
// survives its monitor crashing with no swarm command run in between.
const regentSession = "swarm-regent"

// startMonitor launches the loop's monitor: in a window of the regent session when the loop is
// supervised, otherwise as a detached process. Either way it is started from swarm's own
// executable, never a relative path, and logs to the loop's monitor.log.
func startMonitor(e *env, name string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	ld := ralph.DirFor(e.dir, name)
	base := []string{exe, "--swarm-dir", e.dir.Root, "--tmux-socket", e.tm.Socket(), "ralph"}
	argv := append(append([]string{}, base...), "__monitor", name)
	supervised := true
	if st, err := ld.Load(); err == nil && st.Regent != nil && !st.Regent.Enabled {
		supervised = false
	}
	var pid int
	if supervised {
		keeper := append(append([]string{}, base...), "__keeper", name)
		p, err := e.tm.NewWindow(tmux.Spec{Session: regentSession, Window: name, Cwd: "/", Argv: keeper})
		if err != nil {
			return err
		}
		if err := e.tm.ReviveOnDeath(p.ID); err != nil {
			_ = e.tm.KillPane(p.ID)
			return err
		}
		pid = p.PID
	} else {
		logf, err := os.OpenFile(ld.MonitorLog(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return err
		}
		defer logf.Close()
		if pid, err = startDetached(argv, "/", tmux.FilterEnv(os.Environ()), logf, logf); err != nil {
			return err
		}
	}
	// Wait until it holds its lock (or has already finished), so the caller's next command
	// sees a live monitor.
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if ld.MonitorAlive() || !processAlive(pid, 0) {
			return nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

type osProcs struct{}

func (osProcs) Alive(pid int) bool                      { return processAlive(pid, 0) }
func (osProcs) KillGroup(pgid int, grace time.Duration) { killGroup(pgid, grace) }
func (osProcs) KillTagged(tag string, grace time.Duration) int {
	return proc.KillTagged(tag, grace)
}

// runMonitor drives a loop in this process until it ends. foreground runs print plain lines to
// out and map the loop's outcome to the exit code; the background monitor writes to the loop's
// monitor.log with timestamps.
func runMonitor(e *env, name string, out io.Writer, foreground bool) error {
	if err := validateName(name); err != nil {
		return err
	}
	ld := ralph.DirFor(e.dir, name)
	if !foreground {
		logf, err := os.OpenFile(ld.MonitorLog(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err == nil {
			defer logf.Close()
			out = timestamped{logf}
		} else {
			out = timestamped{out}
		}
	}
	lock, ok, err := state.TryLock(ld.MonitorLockPath())
	if err != nil {
		return fail("%v", err)
	}
	if !ok {
		if foreground {
			return fail("a monitor is already running the loop for '%s'", name)
		}
		return nil
	}
	defer lock.Unlock()
	me := os.Getpid()
	var prev *ralph.State
	abort := make(chan struct{})
	_, err = ld.Update(func(s *ralph.State) error {
		c := *s
		prev = &c
		s.MonitorPID = me
		return nil
	})
	if err != nil {
		fmt.Fprintf(out, "swarm: error: %v\n", err)
		return fail("%v", err)
	}
	defer func() {
		_, _ = ld.Update(func(s *ralph.State) error {
			if s.MonitorPID == me {
				s.MonitorPID = 0
			}
			return nil
		})
	}()
	loop := ralph.New(ralph.Config{
		Name:        name,
		Dir:         ld,
		Workers:     e.dir,
		Tmux:        e.tm,
		Procs:       osProcs{},
		Out:         out,
		RunWrapper:  runWrapper(),
		Abort:       abort,
		MonitorLock: lock,
	})
	if !foreground && prev.MonitorPID != 0 && prev.MonitorPID != me && prev.Status == ralph.StatusRunning {
		if giveUp := loop.Resurrected(prev.MonitorPID); giveUp {
			return nil
		}
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGHUP)
	defer signal.Stop(sigs)
	go func() {
		interrupts := 0
		for s := range sigs {
			switch s {
			case syscall.SIGHUP:
				continue
			case syscall.SIGQUIT:
				close(abort)
				return
			case syscall.SIGINT:
				interrupts++
				if interrupts > 1 {
					close(abort)
					return
				}
			}
			fmt.Fprintf(out, "[ralph] %s: received %s, pausing after the current iteration (again or SIGQUIT: stop now)\n", name, signalName(s))
			_, _ = ld.Update(func(st *ralph.State) error {
				if st.Status == ralph.StatusRunning {
					st.Status = ralph.StatusPaused
					st.ExitReason = "signal"
				}
				return nil
			})
			_ = ld.LogEvent(time.Now(), "PAUSE", "signal "+signalName(s))
		}
	}()
	status, err := loop.Run()
	if err != nil {
		fmt.Fprintf(out, "swarm: error: %v\n", err)
	}
	if foreground && status == ralph.StatusFailed {
		return exitCode(1)
	}
	return nil
}

// runKeeper is the Regent's resurrection: it runs the loop's monitor as its child and starts a
// new one (after a second) whenever the monitor dies while the loop should still be running.
// The keeper itself runs in a window of the regent session, which tmux revives if the keeper
// dies; it removes its own window when the loop no longer needs a monitor.
func runKeeper(e *env, name string) error {
	if err := validateName(name); err != nil {
		return err
	}
	ld := ralph.DirFor(e.dir, name)
	exe, err := os.Executable()
	if err != nil {
		return fail("%v", err)
	}
	// Caught rather than ignored, so the monitor it starts gets default handling back.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	defer func() {
		if pane := tmux.CurrentPane(); pane != "" {
			_ = e.tm.KillPane(pane)
		}
	}()
	needed := func() bool {
		st, err := ld.Load()
		return err == nil && st.Status == ralph.StatusRunning
	}
	for needed() {
		if ld.MonitorAlive() {
			// A monitor from before this keeper still runs; take over when it is gone.
			time.Sleep(time.Second)
			continue
		}
		cmd := exec.Command(exe, "--swarm-dir", e.dir.Root, "--tmux-socket", e.tm.Socket(), "ralph", "__monitor", name)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		// Signals reach the monitor directly (its pid is in the loop state); a new process
		// group keeps the terminal's signals for the keeper's window from reaching it twice.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			appendMonitorLog(ld, fmt.Sprintf("🛡️  Regent: cannot start the monitor: %v", err))
			time.Sleep(time.Second)
			continue
		}
		_ = cmd.Wait()
		if !needed() {
			break
		}
		time.Sleep(time.Second)
	}
	return nil
}

func signalName(s os.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return s.String()
}
