package swarm

import (
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/heartbeat"
	"github.com/swarm-dev/swarm/swarm/regent"
)

// One process sends every heartbeat of a state directory: it sleeps until the next beat is due
// (or a command wakes it with SIGUSR1), and leaves when no heartbeat is active. It runs under a
// keeper, as a loop's monitor does: the keeper starts it again a second after it dies, and
// tmux revives the keeper's window if the keeper dies. After a reboot or a tmux server restart
// the next heartbeat command starts them again.

const runnerWindow = "heartbeats"

func heartbeatRunnerCommand() *cli.Command {
	return &cli.Command{
		Name:   "__run",
		Hidden: true,
		Action: func(c *cli.Context) error {
			return withEnv(c, nil, runHeartbeats)
		},
	}
}

func heartbeatKeeperCommand() *cli.Command {
	return &cli.Command{
		Name:   "__keep",
		Hidden: true,
		Action: func(c *cli.Context) error {
			return withEnv(c, nil, keepHeartbeats)
		},
	}
}

// runnerArgv runs a hidden heartbeat command of this executable on this state directory and
// tmux server, wherever it starts.
func runnerArgv(e *env, exe, command string) []string {
	return []string{exe, "--swarm-dir", e.Dir().Root, "--tmux-socket", e.Tmux().Socket(), "heartbeat", command}
}

// keepHeartbeats runs the runner as its child for as long as a heartbeat is active, starting
// it again when it dies.
func keepHeartbeats(e *env) error {
	s := heartbeat.StoreFor(e.Dir())
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fail("%w", err)
	}
	lock, ok, err := state.TryLock(s.KeeperLock())
	if err != nil || !ok {
		return err // another keeper is on it
	}
	defer lock.Unlock()
	defer regent.RemoveOwnPane(e.Host)
	exe, err := os.Executable()
	if err != nil {
		return fail("%w", err)
	}
	signal.Ignore(syscall.SIGUSR1)
	// The runner ends with its keeper (a killed tmux server takes both): a keeper revived by
	// tmux starts a new one, and nothing is left running where no keeper watches it.
	runtime.LockOSThread()
	for {
		_, _ = runKeptChild(runnerArgv(e, exe, "__run"), syscall.SIGTERM)
		if mayLeave(s, lock) {
			return nil
		}
		time.Sleep(time.Second)
	}
}

func runHeartbeats(e *env) error {
	s := heartbeat.StoreFor(e.Dir())
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fail("%w", err)
	}
	lock, ok, err := state.TryLock(s.RunnerLock())
	if err != nil || !ok {
		return err // another runner serves them
	}
	defer lock.Unlock()
	_ = state.WriteFileAtomic(s.RunnerPID(), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	wake := make(chan os.Signal, 1)
	signal.Notify(wake, syscall.SIGUSR1)
	defer signal.Stop(wake)
	for {
		next := beatDue(e, s, time.Now())
		if next.IsZero() && mayLeave(s, lock) {
			return nil
		}
		sleepUntil(next, wake)
	}
}

// mayLeave lets the runner (or its keeper) go when no heartbeat is active, checked under the
// store's lock and letting go of its own lock inside it: a command that activates a heartbeat
// either is seen here or finds nobody serving them and starts a keeper.
func mayLeave(s heartbeat.Store, lock *state.Lock) bool {
	leave := false
	_ = s.Locked(func() error {
		if !s.AnyActive() {
			leave = true
			lock.Unlock()
		}
		return nil
	})
	return leave
}

// maxSleep bounds a wait, so a worker that ended is noticed, and a clock that jumped (a
// suspended laptop) is caught up with, within a minute.
const maxSleep = time.Minute

func sleepUntil(next time.Time, wake <-chan os.Signal) {
	d := maxSleep
	if !next.IsZero() {
		d = min(max(time.Until(next), 0), maxSleep)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-wake:
	}
}

// beatDue sends every beat that is due and records what happened; it returns when the next
// one is due (zero when no heartbeat is active).
func beatDue(e *env, s heartbeat.Store, now time.Time) time.Time {
	hs := s.List(e.warnErr)
	workers, _, err := e.LoadAll()
	if err != nil {
		return now.Add(maxSleep)
	}
	byName := map[string]*state.Worker{}
	for _, w := range workers {
		byName[w.Name] = w
	}
	var next time.Time
	for _, h := range hs {
		w := byName[h.WorkerName]
		running := w != nil && w.Tmux != nil && w.Status == state.StatusRunning
		step := heartbeat.Decide(h, running, now)
		if step.Send && sendText(e, w, h.Message, true, true) != nil {
			step.Send = false // not sent: tried again at the next pass
		}
		if step.Send || step.Status != h.Status {
			recordStep(s, h.WorkerName, step, now)
		}
		if !step.Wake.IsZero() && (next.IsZero() || step.Wake.Before(next)) {
			next = step.Wake
		}
	}
	return next
}

// recordStep writes a step's outcome, unless a command changed the heartbeat meanwhile.
func recordStep(s heartbeat.Store, worker string, step heartbeat.Step, now time.Time) {
	_, _ = s.Update(worker, func(cur *heartbeat.State) (*heartbeat.State, error) {
		if cur == nil || cur.Status != heartbeat.Active {
			return nil, nil
		}
		if step.Send {
			cur.Sent(now)
		}
		cur.Status = step.Status
		return cur, nil
	})
}

// ensureRunner wakes the runner to look at the heartbeats again, or starts it with its keeper.
func ensureRunner(e *env) error {
	s := heartbeat.StoreFor(e.Dir())
	if state.IsLocked(s.KeeperLock()) && !keeperLeaving(e, s) {
		wakeRunner(s)
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	p, err := regent.StartRevived(e.Host, runnerWindow, runnerArgv(e, exe, "__keep"))
	if err != nil {
		return fail("cannot start the heartbeat runner: %w", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && !state.IsLocked(s.RunnerLock()) && e.Procs().Alive(p.PID, 0) {
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

// keeperLeaving reports a keeper whose window is gone, once it has left: tmux hangs up the
// program of a window it closes, but the program may take a moment to end (on a busy machine,
// more than one), and a command that took it for alive meanwhile would leave no runner at all.
// A keeper still there after that (one of another tmux server) is taken to serve them.
func keeperLeaving(e *env, s heartbeat.Store) bool {
	if keeperWindowThere(e) {
		return false
	}
	waitFor(5*time.Second, func() bool { return !state.IsLocked(s.KeeperLock()) })
	return !state.IsLocked(s.KeeperLock())
}

// keeperWindowThere reports whether the runner's window is on this tmux server (true when
// the server cannot say: nothing is waited for then).
func keeperWindowThere(e *env) bool {
	panes, err := e.Tmux().Panes()
	if err != nil {
		return true
	}
	for _, p := range panes {
		if p.Session == regent.Session && p.WindowName == runnerWindow {
			return true
		}
	}
	return false
}

// stopHeartbeat stops the worker's heartbeat, if it has one, when the worker is killed or
// cleaned: nothing is left nudging a worker that is gone.
func stopHeartbeat(e *env, name string) {
	h, _ := heartbeat.StoreFor(e.Dir()).Update(name, func(cur *heartbeat.State) (*heartbeat.State, error) {
		if cur == nil || (cur.Status != heartbeat.Active && cur.Status != heartbeat.Paused) {
			return nil, nil
		}
		cur.Status = heartbeat.Stopped
		return cur, nil
	})
	if h != nil {
		wakeRunner(heartbeat.StoreFor(e.Dir())) // it leaves when that was the last one
	}
}

// wakeRunner has a running runner look at the heartbeats now. While its keeper is starting a
// new one there is none to wake: a new runner looks at everything first.
func wakeRunner(s heartbeat.Store) {
	if !state.IsLocked(s.RunnerLock()) {
		return
	}
	if data, err := os.ReadFile(s.RunnerPID()); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGUSR1)
		}
	}
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

// waitFor polls cond until it holds or d has passed.
func waitFor(d time.Duration, cond func() bool) {
	deadline := time.Now().Add(d)
	for !cond() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}
