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

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
)

// The loop's background processes: the monitor that drives a loop, and the keeper that
// restarts a monitor that dies.

func monitorCommand() *cli.Command {
	return &cli.Command{
		Name:   "__monitor",
		Hidden: true,
		Action: func(c *cli.Context) error {
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			return runMonitor(e, monitorOptions{name: c.Args().First(), out: e.stdout})
		},
	}
}

func keeperCommand() *cli.Command {
	return &cli.Command{
		Name:   "__keeper",
		Hidden: true,
		Action: func(c *cli.Context) error {
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			return runKeeper(e, keeperOptions{name: c.Args().First()})
		},
	}
}

// runWrapper is swarm's own process wrapper (swarm __run), started by absolute path.
func runWrapper() []string {
	exe, err := os.Executable()
	if err != nil {
		exe = "swarm"
	}
	return []string{exe, "__run"}
}

// monitorArgv runs a hidden ralph command (__monitor, __keeper) of this executable on this
// state directory and tmux server, whatever directory or environment it starts in.
func monitorArgv(e *env, exe, command, name string) []string {
	return []string{exe, "--swarm-dir", e.dir.Root, "--tmux-socket", e.tm.Socket(), "ralph", command, name}
}

// logTimeFormat starts every line of the loop's logs (as ralph.Dir.LogEvent writes them).
const logTimeFormat = "2006-01-02T15:04:05"

// timestamped prefixes every line written to a detached monitor's log with the time.
type timestamped struct{ w io.Writer }

func (t timestamped) Write(p []byte) (int, error) {
	ts := time.Now().Format(logTimeFormat) + " "
	var b strings.Builder
	for _, l := range strings.SplitAfter(string(p), "\n") {
		if l != "" {
			b.WriteString(ts + l)
		}
	}
	if _, err := io.WriteString(t.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

func appendMonitorLog(ld ralph.Dir, line string) {
	_ = state.AppendLine(ld.MonitorLog(), time.Now().Format(logTimeFormat)+" "+line)
}

// regentSession hosts the loops' monitors on swarm's private tmux server. tmux restarts a
// monitor whose process dies (see tmux.ReviveOnDeath), which is how a supervised loop
// survives its monitor crashing with no swarm command run in between.
const regentSession = "swarm-regent"

// startMonitor launches the loop's monitor: under a keeper in a window of the regent session
// when the loop is supervised, otherwise as a detached process. Either way it is started from
// swarm's own executable, never a relative path, and logs to the loop's monitor.log.
func startMonitor(e *env, name string) error {
	e = e.onServerOf(name)
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	ld := ralph.DirFor(e.dir, name)
	supervised := true
	if st, err := ld.Load(); err == nil && st.Regent != nil && !st.Regent.Enabled {
		supervised = false
	}
	var pid int
	if supervised {
		pid, err = startKeeper(e, name, monitorArgv(e, exe, "__keeper", name))
	} else {
		pid, err = startDetachedMonitor(ld, monitorArgv(e, exe, "__monitor", name))
	}
	if err != nil {
		return err
	}
	// Wait until it holds its lock (or has already finished), so the caller's next command
	// sees a live monitor.
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && !ld.MonitorAlive() && e.procs.Alive(pid, 0) {
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

func startKeeper(e *env, name string, argv []string) (int, error) {
	p, err := e.tm.NewWindow(tmux.Spec{Session: regentSession, Window: name, Cwd: "/", Argv: argv})
	if err != nil {
		return 0, err
	}
	if err := e.tm.ReviveOnDeath(p.ID); err != nil {
		_ = e.tm.KillPane(p.ID)
		return 0, err
	}
	return p.PID, nil
}

func startDetachedMonitor(ld ralph.Dir, argv []string) (int, error) {
	logf, err := os.OpenFile(ld.MonitorLog(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return 0, err
	}
	defer logf.Close()
	return startDetached(argv, "/", tmux.FilterEnv(os.Environ()), logf, logf)
}

// loopProcs gives a loop the command's process table.
type loopProcs struct{ t processTable }

func (p loopProcs) Alive(pid int) bool                      { return p.t.Alive(pid, 0) }
func (p loopProcs) KillGroup(pgid int, grace time.Duration) { p.t.KillGroup(pgid, grace) }
func (p loopProcs) KillTagged(tag string, grace time.Duration) int {
	return p.t.KillTagged(tag, grace)
}

// monitorOptions is one run of a loop's monitor.
type monitorOptions struct {
	name string
	// out gets the loop's messages. A background monitor writes them to the loop's
	// monitor.log with timestamps instead, and out only when that cannot be opened.
	out io.Writer
	// foreground runs print plain lines to out (under a progress line on a terminal), the
	// summary at the end, and map the loop's outcome to the exit code.
	foreground bool
	// verbose: a foreground run also shows what checkers and hooks print.
	verbose bool
}

// runMonitor drives a loop in this process until it ends.
func runMonitor(e *env, o monitorOptions) error {
	if err := validateName(o.name); err != nil {
		return err
	}
	ld := ralph.DirFor(e.dir, o.name)
	out, closeOut := monitorOutput(ld, o)
	defer closeOut()
	lock, ok, err := state.TryLock(ld.MonitorLockPath())
	if err != nil {
		return fail("%v", err)
	}
	if !ok {
		if o.foreground {
			return fail("a monitor is already running the loop for '%s'", o.name)
		}
		// Another monitor drives the loop (a keeper's restart raced a resume): it is in hand.
		return nil
	}
	defer lock.Unlock()
	prev, err := claimLoop(ld)
	if err != nil {
		fmt.Fprintf(out, "swarm: error: %v\n", err)
		return fail("%v", err)
	}
	defer releaseLoop(ld)
	abort := make(chan struct{})
	detail := out
	if o.foreground {
		progress := newProgressLine(out, ld)
		if progress != nil {
			out = progress
			defer progress.close()
		}
		detail = out
		if !o.verbose {
			detail = io.Discard
		}
	}
	loop := ralph.New(ralph.Config{Name: o.name, Dir: ld, Workers: e.dir, Tmux: e.tm, Procs: loopProcs{e.procs}, Out: out,
		Detail: detail, RunWrapper: runWrapper(), Abort: abort, MonitorLock: lock})
	if !o.foreground && prev.MonitorPID != 0 && prev.MonitorPID != os.Getpid() &&
		(prev.Status == ralph.StatusRunning || prev.Status == ralph.StatusWaiting) {
		if giveUp := loop.Resurrected(prev.MonitorPID); giveUp {
			return nil
		}
	}
	defer pauseOnSignals(o.name, ld, out, abort)()
	status, err := loop.Run()
	if err != nil {
		fmt.Fprintf(out, "swarm: error: %v\n", err)
	}
	if o.foreground {
		return foregroundEnd(ld, o, status, out)
	}
	return nil
}

// foregroundEnd prints a finished loop's summary and maps how it ended to the exit code: 0
// complete, 1 failed (or out of iterations with checks not passed), 2 stagnated.
func foregroundEnd(ld ralph.Dir, o monitorOptions, status ralph.Status, out io.Writer) error {
	st, err := ld.Load()
	if err != nil {
		if status == ralph.StatusFailed {
			return exitCode(1)
		}
		return nil
	}
	// An agent has said its session summary; a loop's own is in summary.md.
	if am, _ := ld.LoadAgentMode(); am == nil && (status == ralph.StatusStopped || status == ralph.StatusFailed) {
		if s, err := ld.LoadSummary(o.name, time.Now()); err == nil {
			fmt.Fprint(out, "\n"+s.Markdown())
		}
	}
	if code := ralph.OutcomeOf(st).ExitCode(); code != 0 {
		return exitCode(code)
	}
	return nil
}

func monitorOutput(ld ralph.Dir, o monitorOptions) (io.Writer, func()) {
	if o.foreground {
		return o.out, func() {}
	}
	logf, err := os.OpenFile(ld.MonitorLog(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return timestamped{o.out}, func() {}
	}
	return timestamped{logf}, func() { logf.Close() }
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

// pauseOnSignals makes SIGTERM and a first SIGINT pause the loop after the current iteration,
// and SIGQUIT or a second SIGINT end the agent at once (abort). It returns what undoes it.
func pauseOnSignals(name string, ld ralph.Dir, out io.Writer, abort chan<- struct{}) func() {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGHUP)
	go handleSignals(sigs, name, ld, out, abort)
	return func() {
		signal.Stop(sigs)
		// No signal is delivered once Stop has returned.
		close(sigs)
	}
}

func handleSignals(sigs <-chan os.Signal, name string, ld ralph.Dir, out io.Writer, abort chan<- struct{}) {
	interrupts := 0
	for s := range sigs {
		switch s {
		case syscall.SIGHUP:
			// The terminal of a foreground loop went away; the loop goes on.
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
		_, _, _ = ld.Transition(time.Now(), func(st *ralph.State) (ralph.Decision, error) {
			return ralph.Pause(st, "signal "+signalName(s), "signal")
		})
	}
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

type keeperOptions struct {
	name string
}

// runKeeper is the Regent's resurrection: it runs the loop's monitor as its child and starts a
// new one (after a second) whenever the monitor dies while the loop should still be running.
// The keeper itself runs in a window of the regent session, which tmux revives if the keeper
// dies; it removes its own window when the loop no longer needs a monitor.
func runKeeper(e *env, o keeperOptions) error {
	if err := validateName(o.name); err != nil {
		return err
	}
	ld := ralph.DirFor(e.dir, o.name)
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
	for loopNeedsMonitor(ld) {
		if ld.MonitorAlive() {
			// A monitor from before this keeper still runs; take over when it is gone.
			time.Sleep(time.Second)
			continue
		}
		if err := runMonitorChild(monitorArgv(e, exe, "__monitor", o.name)); err != nil {
			appendMonitorLog(ld, fmt.Sprintf("🛡️  Regent: cannot start the monitor: %v", err))
		}
		if !loopNeedsMonitor(ld) {
			break
		}
		time.Sleep(time.Second)
	}
	return nil
}

func loopNeedsMonitor(ld ralph.Dir) bool {
	st, err := ld.Load()
	return err == nil && (st.Status == ralph.StatusRunning || st.Status == ralph.StatusWaiting || ld.SequencePending(st))
}

// runMonitorChild runs a monitor until it ends; the error is only that it could not start.
// The monitor outlives its keeper: a new keeper waits for it and takes over.
func runMonitorChild(argv []string) error { return runKeptChild(argv, 0) }

// runKeptChild runs a kept process until it ends. deathSig, when not 0, is sent to it should
// its keeper die first (the caller's thread must stay locked to its goroutine).
func runKeptChild(argv []string, deathSig syscall.Signal) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// Signals reach the monitor directly (its pid is in the loop state); a new process
	// group keeps the terminal's signals for the keeper's window from reaching it twice.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: deathSig}
	if err := cmd.Start(); err != nil {
		return err
	}
	_ = cmd.Wait()
	return nil
}
