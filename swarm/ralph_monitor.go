package swarm

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/proc"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/swarm/worker"
	"github.com/swarm-dev/swarm/tmux"
)

// A loop's monitor: the Regent drives every supervised loop of a state directory in one
// process (regent_serve.go); a loop without the Regent, or one run in the foreground, has a
// monitor process of its own. Both drive it through driveLoop.

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

// runWrapper is swarm's own process wrapper (swarm __run), started by absolute path.
func RunWrapper() []string {
	exe, err := os.Executable()
	if err != nil {
		exe = "swarm"
	}
	return []string{exe, "__run"}
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
	_ = state.AppendLineMarking(ld.MonitorLog(), time.Now().Format(logTimeFormat)+" "+line, tornMark)
}

// startMonitor has the loop driven: by the Regent when the loop is supervised, otherwise by
// a detached monitor process of its own. Either is started from swarm's own executable, never
// a relative path, and the loop's lines go to its monitor.log. It returns once the loop's
// monitor holds its lock (or has already finished), so the caller's next command sees it.
func startMonitor(e *env, name string) error {
	e = e.onServerOf(name)
	ld := ralph.DirFor(e.Dir(), name)
	if st, err := ld.Load(); err != nil || ralph.EffectiveSupervision(st.Supervision).Enabled {
		if err := ensureRegent(e); err != nil {
			return err
		}
		// Until the Regent has claimed the loop (its pid on record), so the caller's next
		// command, a signal to the monitor say, reaches it.
		waitFor(5*time.Second, func() bool {
			return claimedByRegent(e, ld) || !loopNeedsMonitor(ld) || !regent.NewClient(e.Dir()).Alive()
		})
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	argv := []string{exe, "--swarm-dir", e.Dir().Root, "--tmux-socket", e.Tmux().Socket(), "ralph", "__monitor", name}
	pid, err := startDetachedMonitor(ld, argv)
	if err != nil {
		return err
	}
	waitFor(5*time.Second, func() bool { return ld.MonitorAlive() || !e.Procs().Alive(pid, 0) })
	return nil
}

// claimedByRegent reports whether the Regent drives the loop and has its pid on record.
func claimedByRegent(e *env, ld ralph.Dir) bool {
	st, err := ld.Load()
	return err == nil && ld.MonitorAlive() && st.MonitorPID != 0 && st.MonitorPID == regent.NewClient(e.Dir()).PID()
}

// waitFor polls cond until it holds or d has passed.
func waitFor(d time.Duration, cond func() bool) {
	deadline := time.Now().Add(d)
	for !cond() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

func startDetachedMonitor(ld ralph.Dir, argv []string) (int, error) {
	logf, err := os.OpenFile(ld.MonitorLog(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return 0, err
	}
	defer logf.Close()
	return worker.StartDetached(argv, "/", tmux.FilterEnv(os.Environ()), logf, logf)
}

// loopProcs gives a loop the command's process table.
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
	if err := worker.ValidateName(o.name); err != nil {
		return err
	}
	ld := ralph.DirFor(e.Dir(), o.name)
	out, closeOut := monitorOutput(ld, o)
	defer closeOut()
	lock, ok, err := state.TryLock(ld.MonitorLockPath())
	if err != nil {
		return fail("%w", err)
	}
	if !ok {
		if o.foreground {
			return fail("a monitor is already running the loop for '%s'", o.name)
		}
		// Another monitor drives the loop: it is in hand.
		return nil
	}
	defer lock.Unlock()
	// The loop's context ends with this monitor; a signal cancels it sooner (an abort).
	ctx, abort := context.WithCancel(context.Background())
	defer abort()
	detail := out
	if o.foreground {
		lines := out
		if progress := newProgressLine(out, ld); progress != nil {
			lines = progress
			defer progress.close()
		}
		regent := regentLines(lines, colorFor(o.out), time.Now)
		defer func() { _ = regent.flush() }()
		out = regent
		detail = out
		if !o.verbose {
			detail = io.Discard
		}
	}
	defer pauseOnSignals(o.name, ld, out, abort)()
	status, err := driveLoop(e, lock, loopDrive{name: o.name, out: out, detail: detail, ctx: ctx, resurrect: !o.foreground})
	if err != nil {
		fmt.Fprintf(out, "swarm: error: %v\n", err)
		if status == "" {
			return fail("%w", err)
		}
	}
	if o.foreground {
		return foregroundEnd(ld, o, status, out)
	}
	return nil
}

// loopDrive is what a monitor, a process of its own or the Regent's, drives a loop with.
type loopDrive struct {
	name        string
	out, detail io.Writer
	// ctx, once cancelled, ends the agent at once and leaves the loop paused (an abort).
	ctx context.Context
	// resurrect: a background monitor counts a predecessor that died on the job as a
	// resurrection (and may give up on a loop that keeps killing its monitors).
	resurrect bool
	// regent: the Regent drives the loop (its crash loop is the daemon's, see keepRegent).
	regent bool
	// tm, when not nil, is the tmux client the loop uses instead of the environment's.
	tm tmux.Client
	// relaxed: the agent's end is watched, not polled for, so the safety polls run seldom.
	relaxed bool
}

// The Regent's polls: of an agent's process (its end is reported by the kernel; this is the
// safety net) and of a loop's files (inotify reports their changes), every relaxedPoll, so
// an idle loop wakes its Regent once a minute; of a screen that stays still, at most every
// relaxedScreenPoll (one that moves is looked at within moments, see ralph's watch).
const (
	relaxedPoll       = 60 * time.Second
	relaxedScreenPoll = 10 * time.Second
)

// loopConfig is the configuration a monitor drives the loop with.
func loopConfig(e *env, lock *state.Lock, d loopDrive) ralph.Config {
	tm := d.tm
	if tm == nil {
		tm = e.Tmux()
	}
	cfg := ralph.Config{Name: d.name, Dir: ralph.DirFor(e.Dir(), d.name), Workers: e.Dir(), Tmux: tm, Procs: loopProcs{e.Procs()},
		Out: d.out, Detail: d.detail, RunWrapper: worker.RunWrapper(), Context: d.ctx, MonitorLock: lock}
	cfg.Output = outputPiperFor(e.Tmux())
	cfg.Host = true
	if d.relaxed {
		cfg.ExitPoll, cfg.StatusPoll, cfg.ScreenPoll = relaxedPoll, relaxedPoll, relaxedScreenPoll
	}
	return cfg
}

// driveLoop runs the loop whose monitor lock the caller holds until it ends, pauses or is
// aborted. It returns the status it ended in ("" when the loop could not even be claimed) and
// the error that ended it.
// notifyFlush bounds the wait for a finished loop's notifications.
const notifyFlush = 15 * time.Second

func driveLoop(e *env, lock *state.Lock, d loopDrive) (ralph.Status, error) {
	ld := ralph.DirFor(e.Dir(), d.name)
	prev, err := claimLoop(ld)
	if err != nil {
		return "", err
	}
	defer releaseLoop(ld)
	loop := ralph.New(loopConfig(e, lock, d))
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

// foregroundEnd prints a finished loop's summary and maps how it ended to the exit code
// (foregroundExit).
func foregroundEnd(ld ralph.Dir, o monitorOptions, status ralph.Status, out io.Writer) error {
	st, err := ld.Load()
	if err != nil {
		if status == ralph.StatusFailed {
			return exitCode(ExitError)
		}
		return nil
	}
	// An agent has said its session summary; a loop's own is in summary.md.
	am, _ := ld.LoadAgentMode()
	if am == nil && (status == ralph.StatusStopped || status == ralph.StatusFailed) {
		if s, err := ld.LoadSummary(o.name, time.Now()); err == nil {
			fmt.Fprint(out, "\n"+s.Markdown())
		}
	}
	return exitCode(foregroundExit(st, am))
}

func monitorOutput(ld ralph.Dir, o monitorOptions) (io.Writer, func()) {
	if o.foreground {
		return o.out, func() {}
	}
	return timestamped{logAppender{ld.MonitorLog()}}, func() {}
}

// tornMark ends a monitor.log line whose writer stopped mid-line (killed, a full disk): the
// next entry starts on a line of its own, and ralph logs tells the torn one apart.
const tornMark = " [torn]"

// logAppender writes each Write to a log file as whole lines, after a torn line if one was
// left (see state.AppendLineMarking).
type logAppender struct{ path string }

func (a logAppender) Write(p []byte) (int, error) {
	if err := state.AppendLineMarking(a.path, string(p), tornMark); err != nil {
		return 0, err
	}
	return len(p), nil
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

// loopNeedsMonitor is needsMonitor for the loop as it is on disk.
func loopNeedsMonitor(ld ralph.Dir) bool {
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

// runKeptChild runs a kept process until it ends, and reports whether it ended on purpose
// (exit 0); err is only that it could not start. deathSig, when not 0, is sent to it should its
// keeper die first (the caller's thread must stay locked to its goroutine).
func runKeptChild(argv []string, deathSig syscall.Signal) (clean bool, err error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// Signals reach the kept process directly (its pid is on record); a new process group
	// keeps the terminal's signals for the keeper's window from reaching it twice.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: deathSig}
	if err := cmd.Start(); err != nil {
		return false, err
	}
	return cmd.Wait() == nil, nil
}
