package ralph

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/git"
	"github.com/swarm-dev/swarm/tmux"
)

// Clock is the loop's time source; tests use a fake one that advances on Sleep.
type Clock interface {
	Now() time.Time
	Sleep(d time.Duration)
}

// RealClock is the wall clock.
type RealClock struct{}

// Now returns the current time.
func (RealClock) Now() time.Time { return time.Now() }

// Sleep pauses the goroutine.
func (RealClock) Sleep(d time.Duration) { time.Sleep(d) }

// Procs is what the loop needs from the operating system.
type Procs interface {
	// Alive reports whether pid is a live process (not a zombie).
	Alive(pid int) bool
	// KillGroup ends process group pgid: SIGTERM, grace, SIGKILL.
	KillGroup(pgid int, grace time.Duration)
}

// Config is everything a monitor needs to drive one loop.
type Config struct {
	Name    string
	Dir     Dir
	Workers *state.Dir
	Tmux    tmux.Client
	Procs   Procs
	Clock   Clock
	// Out receives the loop's "[ralph] ..." messages.
	Out io.Writer
	// RunWrapper is the argv prefix of swarm's process wrapper, which records the agent's exit
	// code in a file and can feed a file to its standard input:
	// wrapper... --exit-file F [--stdin P] -- command...
	RunWrapper []string
	// ExtraEnv is added to the agent's environment at every iteration (KEY=VALUE).
	ExtraEnv []string

	// Intervals; zero means the default.
	ExitPoll     time.Duration // how often the agent's process is checked (default 200ms)
	ScreenPoll   time.Duration // how often the screen is captured (default 2s, as the seed says)
	StatusPoll   time.Duration // how often the stored status and DONE file are checked (default 500ms)
	ReadyPoll    time.Duration // screen polling while waiting for the prompt (default 200ms)
	KillGrace    time.Duration // SIGTERM to SIGKILL when ending an agent (default 5s)
	InputSettle  time.Duration // between paste and Enter (default 150ms)
	ConfirmAfter time.Duration // how long to wait for the agent to react to Enter (default 3s)
	HistoryLines int           // scrollback searched for the done pattern (default 2000)

	// Abort, when it yields, ends the agent at once and stops the loop (paused).
	Abort <-chan struct{}
	// MonitorLock is the lock that makes this the loop's only monitor; it is released while
	// the loop lock is held when a paused loop's monitor leaves.
	MonitorLock *state.Lock
}

func (c *Config) defaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	// An idle monitor wakes about five times a second: cheap enough to stay far below 1% of a
	// core, often enough that the next iteration starts well within a second of an exit.
	def(&c.ExitPoll, 200*time.Millisecond)
	def(&c.ScreenPoll, 2*time.Second)
	def(&c.StatusPoll, 500*time.Millisecond)
	def(&c.ReadyPoll, 200*time.Millisecond)
	def(&c.KillGrace, 5*time.Second)
	def(&c.InputSettle, 150*time.Millisecond)
	def(&c.ConfirmAfter, 3*time.Second)
	if c.HistoryLines <= 0 {
		c.HistoryLines = 2000
	}
	if c.Clock == nil {
		c.Clock = RealClock{}
	}
	if c.Out == nil {
		c.Out = io.Discard
	}
}

// Loop is one running monitor.
type Loop struct {
	cfg     Config
	doneRE  *regexp.Regexp
	readyRE *regexp.Regexp
	matcher *screen.DoneMatcher
	aborted bool
}

// New prepares a loop; Run drives it.
func New(cfg Config) *Loop {
	cfg.defaults()
	return &Loop{cfg: cfg}
}

// regent is the loop's effective supervision policy.
func (l *Loop) regent(st *State) RegentConfig {
	if st.Regent == nil {
		return DefaultRegent()
	}
	rc := *st.Regent
	if rc.MaxFailures <= 0 {
		rc.MaxFailures = MaxConsecutiveFailures
	}
	return rc
}

// regentSay writes a Regent message in the seed's style.
func (l *Loop) regentSay(format string, args ...any) {
	fmt.Fprintf(l.cfg.Out, "🛡️  Regent: "+format+"\n", args...)
}

func (l *Loop) say(format string, args ...any) {
	fmt.Fprintf(l.cfg.Out, "[ralph] "+l.cfg.Name+": "+format+"\n", args...)
}

func (l *Loop) event(kind, format string, args ...any) {
	_ = l.cfg.Dir.LogEvent(l.cfg.Clock.Now(), kind, fmt.Sprintf(format, args...))
}

func (l *Loop) now() string { return l.cfg.Clock.Now().Format(TimeFormat) }

func (l *Loop) update(fn func(*State) error) (*State, error) { return l.cfg.Dir.Update(fn) }

// errServerGone means the tmux server hosting the loop is gone.
var errServerGone = errors.New("the tmux server is gone")

// Run drives the loop until it is stopped, fails, finishes or is paused with no agent left
// running. It returns the process exit code the seed specifies: 0, or 1 when the loop failed.
func (l *Loop) Run() int {
	for {
		st, err := l.cfg.Dir.Load()
		if err != nil {
			fmt.Fprintf(l.cfg.Out, "swarm: error: cannot read loop state: %v\n", err)
			return 1
		}
		if err := l.compile(st); err != nil {
			l.stop(StatusFailed, "invalid_config", err.Error())
			fmt.Fprintf(l.cfg.Out, "swarm: error: %v\n", err)
			return 1
		}
		switch st.Status {
		case StatusStopped:
			return 0
		case StatusFailed:
			return 1
		}
		if l.aborted {
			return 0
		}
		switch st.Phase {
		case PhaseStarting:
			l.deliver(st)
		case PhaseWorking:
			l.watch(st)
		case PhaseBackoff:
			l.backoff(st)
		default:
			if st.Status == StatusPaused {
				if l.releaseIfPaused() {
					return 0
				}
				continue
			}
			if st.CurrentIteration >= st.MaxIterations {
				l.complete(st)
				continue
			}
			if code, done := l.start(st); done {
				return code
			}
		}
	}
}

func (l *Loop) compile(st *State) error {
	if st.DonePattern != nil && *st.DonePattern != "" && l.doneRE == nil {
		re, err := regexp.Compile(*st.DonePattern)
		if err != nil {
			return fmt.Errorf("invalid done pattern: %v", err)
		}
		l.doneRE = re
	}
	if st.ReadyPattern != "" && l.readyRE == nil {
		re, err := regexp.Compile(st.ReadyPattern)
		if err != nil {
			return fmt.Errorf("invalid ready pattern: %v", err)
		}
		l.readyRE = re
	}
	return nil
}

// releaseIfPaused lets a paused loop's monitor exit. It gives up the monitor lock while holding
// the loop lock, so a concurrent resume sees either a live monitor that will go on, or none and
// starts one: never a monitor that is about to leave.
func (l *Loop) releaseIfPaused() bool {
	released := false
	_ = l.cfg.Dir.WithLock(func() error {
		var st State
		if err := state.ReadJSON(l.cfg.Dir.statePath(), &st); err != nil {
			return err
		}
		if st.Status == StatusPaused {
			released = true
			l.cfg.MonitorLock.Unlock()
		}
		return nil
	})
	return released
}

func (l *Loop) stop(status, reason, logLine string) {
	_, _ = l.update(func(s *State) error {
		s.Status = status
		s.ExitReason = reason
		s.Phase = PhaseEnded
		s.Ended = l.now()
		return nil
	})
	if logLine != "" {
		kind := "STOP"
		if status == StatusFailed {
			kind = "FAIL"
		}
		l.event(kind, "%s", logLine)
	}
}

func (l *Loop) complete(st *State) {
	l.say("loop complete after %d iterations", st.CurrentIteration)
	l.stop(StatusStopped, "max_iterations", fmt.Sprintf("loop complete after %d iterations", st.CurrentIteration))
}

// worker returns the loop's worker record.
func (l *Loop) worker() (*state.Worker, error) {
	ws, err := l.cfg.Workers.LoadWorkers(nil)
	if err != nil {
		return nil, err
	}
	w := ws.Get(l.cfg.Name)
	if w == nil || w.Tmux == nil {
		return nil, fmt.Errorf("worker '%s' is gone", l.cfg.Name)
	}
	return w, nil
}

// start begins the next iteration: fresh prompt, fresh agent in the same pane.
func (l *Loop) start(st *State) (code int, finished bool) {
	n := st.CurrentIteration + 1
	if code, stop := l.stopRules(st, nil, false); stop {
		return code, true
	}
	prompt, err := ReadPrompt(st.PromptFile)
	if err != nil {
		fmt.Fprintf(l.cfg.Out, "swarm: error: %v\n", err)
		l.stop(StatusFailed, "prompt_unreadable", err.Error())
		return 1, true
	}
	w, err := l.worker()
	if err != nil {
		fmt.Fprintf(l.cfg.Out, "swarm: error: %v\n", err)
		l.stop(StatusStopped, "worker_gone", err.Error())
		return 0, true
	}
	if err := os.WriteFile(l.cfg.Dir.PromptCopy(), []byte(prompt), 0o600); err != nil {
		fmt.Fprintf(l.cfg.Out, "swarm: error: cannot save prompt copy: %v\n", err)
		l.stop(StatusFailed, "io_error", err.Error())
		return 1, true
	}
	var startErr error
	started := false
	// The status is checked and the agent started under the loop lock: a pause or kill that
	// lands first is seen, and one that lands later finds the new agent to act on.
	_ = l.cfg.Dir.WithLock(func() error {
		var cur State
		if err := state.ReadJSON(l.cfg.Dir.statePath(), &cur); err != nil {
			startErr = err
			return nil
		}
		if cur.Status != StatusRunning {
			return nil
		}
		startErr = l.launch(w, st, n)
		if startErr != nil {
			return nil
		}
		cur.CurrentIteration = n
		cur.LastIterationStarted = l.now()
		cur.IterationStartCommit = ""
		if rc := l.regent(&cur); rc.Enabled && rc.TestCommand != "" {
			cur.IterationStartCommit = git.Head(w.Cwd)
		}
		cur.Phase = PhaseStarting
		cur.BlockedBy = ""
		cur.LastExitCode = nil
		cur.LastScreenChange = cur.LastIterationStarted
		startErr = state.WriteJSON(l.cfg.Dir.statePath(), &cur)
		started = startErr == nil
		return nil
	})
	if errors.Is(startErr, errServerGone) {
		l.say("tmux server is gone, stopping loop")
		l.stop(StatusStopped, "tmux_server_gone", "tmux server gone")
		return 0, true
	}
	if startErr != nil {
		fmt.Fprintf(l.cfg.Out, "swarm: error: cannot start iteration %d: %v\n", n, startErr)
		l.stop(StatusFailed, "start_failed", startErr.Error())
		return 1, true
	}
	if !started {
		return 0, false
	}
	l.setWorkerIteration(n)
	l.cfg.Dir.UpdateRegent(func(rs *RegentState) { rs.Iteration = n; rs.PID = os.Getpid() })
	l.say("starting iteration %d/%d", n, st.MaxIterations)
	l.event("START", "iteration %d/%d", n, st.MaxIterations)
	return 0, false
}

// AgentArgv is the command run in the pane for an iteration: the agent under swarm's wrapper,
// which writes its exit code to exitFile (tmux does not always collect the status of a pane
// that ends quickly after a respawn) and, in stdin mode, gives it the prompt on stdin.
func AgentArgv(cmd []string, mode string, wrapper []string, exitFile, promptCopy string) []string {
	if len(wrapper) == 0 {
		return cmd
	}
	argv := append([]string{}, wrapper...)
	argv = append(argv, "--exit-file", exitFile)
	if mode == PromptStdin {
		argv = append(argv, "--stdin", promptCopy)
	}
	argv = append(argv, "--")
	return append(argv, cmd...)
}

func (l *Loop) launch(w *state.Worker, st *State, n int) error {
	var env []string
	_ = state.ReadJSON(l.cfg.Workers.EnvPath(w.Name), &env)
	env = append(env, l.cfg.ExtraEnv...)
	env = append(env, fmt.Sprintf("SWARM_ITERATION=%d", n), "SWARM_WORKER="+w.Name, "SWARM_DONE_FILE="+l.cfg.Dir.DoneFile())
	_ = os.Remove(l.cfg.Workers.ExitPath(l.cfg.Name))
	argv := AgentArgv(w.Cmd, st.PromptMode, l.cfg.RunWrapper, l.cfg.Workers.ExitPath(l.cfg.Name), l.cfg.Dir.PromptCopy())
	spec := tmux.Spec{Session: w.Tmux.Session, Window: w.Tmux.Window, Cwd: w.Cwd, Env: env, Argv: argv}
	p, err := l.cfg.Tmux.Pane(w.Tmux.PaneID)
	if err == nil {
		// The previous agent, or grandchildren it left behind in its process group.
		l.cfg.Procs.KillGroup(p.PID, l.cfg.KillGrace)
		_ = l.cfg.Tmux.ClearHistory(w.Tmux.PaneID)
		p, err = l.cfg.Tmux.Respawn(w.Tmux.PaneID, spec)
		if err != nil {
			return err
		}
	} else {
		// With no tmux server left (someone ran kill-server) the loop must not start one again.
		if panes, perr := l.cfg.Tmux.Panes(); perr == nil && len(panes) == 0 {
			return errServerGone
		}
		// The window was closed by hand: open a new one and point the worker at it.
		p, err = l.cfg.Tmux.NewWindow(spec)
		if err != nil {
			return err
		}
	}
	return l.cfg.Workers.UpdateWorkers(nil, func(ws *state.Workers) error {
		cur := ws.Get(w.Name)
		if cur == nil {
			return nil
		}
		cur.Tmux.PaneID = p.ID
		cur.PID = p.PID
		cur.Status = state.StatusRunning
		cur.ExitCode = nil
		return nil
	})
}

func (l *Loop) setWorkerIteration(n int) {
	_ = l.cfg.Workers.UpdateWorkers(nil, func(ws *state.Workers) error {
		if w := ws.Get(l.cfg.Name); w != nil {
			if w.Metadata == nil {
				w.Metadata = map[string]any{}
			}
			w.Metadata["ralph"] = true
			w.Metadata["ralph_iteration"] = n
		}
		return nil
	})
}

// agent is the current iteration's pane as seen now.
type agent struct {
	paneID string
	pid    int
	dead   bool
	gone   bool
	code   *int
}

func (l *Loop) agentNow() agent {
	w, err := l.worker()
	if err != nil {
		return agent{gone: true, dead: true}
	}
	p, err := l.cfg.Tmux.Pane(w.Tmux.PaneID)
	if err != nil {
		return agent{paneID: w.Tmux.PaneID, gone: true, dead: true}
	}
	a := agent{paneID: p.ID, pid: p.PID, dead: p.Dead}
	// The wrapper writes the exit file as the agent ends, often before tmux notices.
	if c, ok := l.cfg.Workers.ExitCode(l.cfg.Name); ok {
		a.code = &c
		a.dead = true
	} else if p.Dead {
		if p.HasStatus {
			c := p.ExitStatus
			a.code = &c
		}
	}
	return a
}

// settled waits (briefly) for tmux to report the ended agent's pane as dead with its exit
// status: the process can be gone a moment before tmux has collected it.
func (l *Loop) settled() agent {
	deadline := l.cfg.Clock.Now().Add(2 * time.Second)
	for {
		a := l.agentNow()
		if a.gone || (a.dead && a.code != nil) || l.cfg.Clock.Now().After(deadline) {
			return a
		}
		l.cfg.Clock.Sleep(20 * time.Millisecond)
	}
}

func (l *Loop) capture(a agent, history int) ([]string, error) {
	out, err := l.cfg.Tmux.Capture(a.paneID, history)
	if err != nil {
		return nil, err
	}
	return screen.Lines(out), nil
}

func (l *Loop) statusNow() string {
	st, err := l.cfg.Dir.Load()
	if err != nil {
		return StatusStopped
	}
	return st.Status
}

func (l *Loop) abortRequested() bool {
	if l.cfg.Abort == nil {
		return false
	}
	select {
	case <-l.cfg.Abort:
		return true
	default:
		return false
	}
}

// abortNow ends the agent at once and leaves the loop paused.
func (l *Loop) abortNow(a agent) {
	l.aborted = true
	if !a.dead {
		l.cfg.Procs.KillGroup(a.pid, 0)
	}
	l.say("stopping now, agent ended")
	_, _ = l.update(func(s *State) error {
		if s.Status == StatusRunning {
			s.Status = StatusPaused
		}
		s.ExitReason = "signal"
		s.Phase = PhaseEnded
		return nil
	})
	l.event("PAUSE", "iteration %d ended by signal", l.iteration())
}

func (l *Loop) iteration() int {
	st, err := l.cfg.Dir.Load()
	if err != nil {
		return 0
	}
	return st.CurrentIteration
}

// deliver waits for the agent's input prompt, then gives it the prompt.
func (l *Loop) deliver(st *State) {
	a := l.agentNow()
	if a.dead {
		l.end(st, l.settled(), endExited)
		return
	}
	prompt, err := os.ReadFile(l.cfg.Dir.PromptCopy())
	if err != nil {
		// The copy is written before the agent starts; without it, read the file again.
		p, perr := ReadPrompt(st.PromptFile)
		if perr != nil {
			fmt.Fprintf(l.cfg.Out, "swarm: error: %v\n", perr)
			l.stop(StatusFailed, "prompt_unreadable", perr.Error())
			return
		}
		prompt = []byte(p)
	}
	l.matcher = screen.NewDoneMatcher(l.doneRE, string(prompt))
	if st.PromptMode == PromptStdin {
		_, _ = l.update(func(s *State) error {
			s.Phase = PhaseWorking
			s.DoneBaseline = 0
			return nil
		})
		return
	}
	timeout := time.Duration(st.ReadyTimeout) * time.Second
	if timeout <= 0 {
		timeout = 120 * time.Second
	}
	deadline := l.cfg.Clock.Now().Add(timeout)
	blocked := st.BlockedBy
	var lines []string
	for {
		if l.abortRequested() {
			l.abortNow(a)
			return
		}
		if l.statusNow() == StatusStopped {
			return
		}
		a = l.agentNow()
		if a.dead {
			l.end(st, l.settled(), endExited)
			return
		}
		lines, err = l.capture(a, 0)
		if err == nil {
			s := screen.Classify(strings.Join(lines, "\n"), l.readyRE)
			if s.Kind == screen.Ready {
				break
			}
			if s.Kind == screen.Dialog && s.Dialog != blocked {
				blocked = s.Dialog
				l.say("agent is waiting at %s; answer it with 'swarm attach %s' (the prompt is not typed into a dialog)", screen.DialogDescription(s.Dialog), l.cfg.Name)
				l.event("BLOCKED", "iteration %d dialog=%s", st.CurrentIteration, s.Dialog)
				_, _ = l.update(func(x *State) error { x.BlockedBy = s.Dialog; return nil })
			}
		}
		if l.cfg.Clock.Now().After(deadline) {
			why := "no input prompt seen"
			if blocked != "" {
				why = "blocked by " + screen.DialogDescription(blocked)
			}
			l.say("agent not ready after %ds (%s)", int(timeout.Seconds()), why)
			l.event("TIMEOUT", "iteration %d ready timeout %ds (%s)", st.CurrentIteration, int(timeout.Seconds()), why)
			l.end(st, a, endReadyTimeout)
			return
		}
		l.cfg.Clock.Sleep(l.cfg.ReadyPoll)
	}
	if blocked != "" {
		_, _ = l.update(func(x *State) error { x.BlockedBy = ""; return nil })
	}
	base := 0
	if l.matcher != nil {
		if full, err := l.capture(a, l.cfg.HistoryLines); err == nil {
			base = l.matcher.Count(full)
		}
	}
	before := screen.ActivityHash(strings.Join(lines, "\n"))
	if err := l.cfg.Tmux.Paste(a.paneID, string(prompt), true); err != nil {
		l.say("could not type the prompt: %v", err)
	}
	l.cfg.Clock.Sleep(l.cfg.InputSettle)
	pasted := before
	if cur, err := l.capture(a, 0); err == nil {
		pasted = screen.ActivityHash(strings.Join(cur, "\n"))
	}
	_ = l.cfg.Tmux.SendKeys(a.paneID, "Enter")
	if !l.confirmStarted(a, pasted) {
		l.say("agent did not react to the prompt; pressing Enter again")
		l.event("RETRY", "iteration %d prompt not picked up, Enter pressed again", st.CurrentIteration)
		_ = l.cfg.Tmux.SendKeys(a.paneID, "Enter")
	}
	_, _ = l.update(func(s *State) error {
		s.Phase = PhaseWorking
		s.DoneBaseline = base
		// Quiet time counts from the prompt, not from the agent's start: a slow start must not
		// use up the inactivity or hang timeout.
		s.LastScreenChange = l.now()
		return nil
	})
}

// ensureMatcher builds the done matcher from the iteration's prompt copy when this monitor
// did not deliver the prompt itself (it took over a running iteration).
func (l *Loop) ensureMatcher() {
	if l.matcher == nil {
		prompt, _ := os.ReadFile(l.cfg.Dir.PromptCopy())
		l.matcher = screen.NewDoneMatcher(l.doneRE, string(prompt))
	}
}

// confirmStarted waits for a sign that the agent took the prompt: it became busy, its screen
// changed from what the paste left, or it ended.
func (l *Loop) confirmStarted(a agent, pasted string) bool {
	deadline := l.cfg.Clock.Now().Add(l.cfg.ConfirmAfter)
	for {
		cur := l.agentNow()
		if cur.dead {
			return true
		}
		if lines, err := l.capture(cur, 0); err == nil {
			text := strings.Join(lines, "\n")
			if screen.ActivityHash(text) != pasted || screen.Classify(text, l.readyRE).Kind == screen.Busy {
				return true
			}
		}
		if l.cfg.Clock.Now().After(deadline) {
			return false
		}
		l.cfg.Clock.Sleep(l.cfg.ReadyPoll)
	}
}

// watch follows a working agent until it exits, goes quiet, hangs, prints the done marker,
// creates the DONE file, runs out of time, or the loop is stopped.
func (l *Loop) watch(st *State) {
	a := l.agentNow()
	l.ensureMatcher()
	rc := l.regent(st)
	inactivity := time.Duration(st.InactivityTimeout) * time.Second
	if inactivity <= 0 {
		inactivity = 60 * time.Second
	}
	hang := time.Duration(rc.HangTimeoutSeconds) * time.Second
	iterLimit := time.Duration(rc.IterationTimeout) * time.Second
	if !rc.Enabled {
		hang, iterLimit = 0, 0
	}
	clock := l.cfg.Clock
	started := ParseTime(st.LastIterationStarted)
	if started.IsZero() {
		started = clock.Now()
	}
	lastChange := clock.Now()
	if t := ParseTime(st.LastScreenChange); !t.IsZero() && !t.Before(started) {
		lastChange = t
	}
	lastProgress := lastChange
	lastHash, lastSubst := "", ""
	nextScreen := clock.Now()
	nextStatus := clock.Now()
	for {
		if l.abortRequested() {
			l.abortNow(a)
			return
		}
		now := clock.Now()
		if !now.Before(nextStatus) {
			nextStatus = now.Add(l.cfg.StatusPoll)
			if l.statusNow() == StatusStopped {
				return
			}
			if present, err := l.cfg.Dir.doneMarker(); err != nil || present {
				l.end(st, a, endDoneFile)
				return
			}
		}
		if a.dead || !l.cfg.Procs.Alive(a.pid) {
			l.end(st, l.settled(), endExited)
			return
		}
		if iterLimit > 0 && now.Sub(started) >= iterLimit {
			l.regentSay("iteration %d exceeded %ds — killing the agent", st.CurrentIteration, int(iterLimit.Seconds()))
			l.end(st, a, endIterationTimeout)
			return
		}
		if !now.Before(nextScreen) {
			nextScreen = now.Add(l.cfg.ScreenPoll)
			lines, err := l.capture(a, l.cfg.HistoryLines)
			if err != nil {
				a = l.agentNow()
				continue
			}
			if l.doneRE != nil && l.matcher.Count(lines) > st.DoneBaseline {
				l.done(st, a)
				return
			}
			text := strings.Join(lines, "\n")
			if h := screen.ActivityHash(text); h != lastHash {
				if lastHash != "" {
					lastChange = now
					_, _ = l.update(func(s *State) error { s.LastScreenChange = now.Format(TimeFormat); return nil })
				}
				lastHash = h
			}
			if h := screen.SubstantiveHash(text); h != lastSubst {
				if lastSubst != "" {
					lastProgress = now
					l.cfg.Dir.UpdateRegent(func(rs *RegentState) { rs.LastOutputAt = now.UTC().Format(time.RFC3339) })
				}
				lastSubst = h
			}
			if now.Sub(lastChange) >= inactivity {
				l.end(st, a, endInactive)
				return
			}
			if hang > 0 && now.Sub(lastProgress) >= hang {
				l.regentSay("agent hung (no progress on screen for %ds) — killing it and restarting", int(hang.Seconds()))
				l.end(st, a, endHung)
				return
			}
		}
		clock.Sleep(l.cfg.ExitPoll)
	}
}

func (l *Loop) saveScreen(a agent, n int) {
	if a.gone {
		return
	}
	out, err := l.cfg.Tmux.Capture(a.paneID, l.cfg.HistoryLines)
	if err != nil {
		return
	}
	dir := filepath.Dir(l.cfg.Dir.ScreenPath(n))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	_ = state.WriteFileAtomic(l.cfg.Dir.ScreenPath(n), []byte(out), 0o600)
	pruneScreens(dir, 50)
}

// pruneScreens keeps the newest keep iteration screens.
func pruneScreens(dir string, keep int) {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) <= keep {
		return
	}
	sort.Slice(entries, func(i, j int) bool {
		a, _ := entries[i].Info()
		b, _ := entries[j].Info()
		if a == nil || b == nil {
			return false
		}
		return a.ModTime().Before(b.ModTime())
	})
	for _, e := range entries[:len(entries)-keep] {
		_ = os.Remove(filepath.Join(dir, e.Name()))
	}
}

func (l *Loop) done(st *State, a agent) {
	l.say("done pattern matched, stopping loop")
	l.event("DONE", "iteration %d done pattern matched", st.CurrentIteration)
	l.saveScreen(a, st.CurrentIteration)
	l.stop(StatusStopped, "done_pattern", "")
	// A finished interactive agent would idle forever: end it now.
	if !a.dead {
		l.cfg.Procs.KillGroup(a.pid, l.cfg.KillGrace)
	}
}

// How an iteration ended.
type endKind int

const (
	endExited endKind = iota
	endInactive
	endHung
	endIterationTimeout
	endReadyTimeout
	endDoneFile
)

// end evaluates an iteration that has ended (or is ended here) and decides what comes next:
// stop, back off, or start the next one. Every way an iteration can end goes through here, so
// the stop rules, test-gated rollback and failure counting apply to all of them alike.
func (l *Loop) end(st *State, a agent, kind endKind) {
	n := st.CurrentIteration
	started := ParseTime(st.LastIterationStarted)
	dur := l.cfg.Clock.Now().Sub(started)
	if started.IsZero() {
		dur = 0
	}
	if l.statusNow() == StatusStopped {
		return
	}
	rc := l.regent(st)
	// The marker may be the last thing the agent printed before it exited.
	if kind == endExited && l.doneRE != nil && !a.gone {
		l.ensureMatcher()
		if lines, err := l.capture(a, l.cfg.HistoryLines); err == nil && l.matcher.Count(lines) > st.DoneBaseline {
			l.done(st, a)
			return
		}
	}
	secs := st.InactivityTimeout
	if secs <= 0 {
		secs = 60 // the default watch() applied
	}
	switch kind {
	case endInactive:
		if n >= st.MaxIterations {
			l.say("inactivity timeout (%ds)", secs)
		} else {
			l.say("inactivity timeout (%ds), restarting", secs)
		}
		l.event("TIMEOUT", "iteration %d inactivity %ds", n, secs)
	case endHung:
		l.event("HANG", "iteration %d no progress for %ds", n, rc.HangTimeoutSeconds)
		l.cfg.Dir.UpdateRegent(func(rs *RegentState) { rs.Hangs++ })
	case endIterationTimeout:
		l.event("TIMEOUT", "iteration %d exceeded %ds", n, rc.IterationTimeout)
	}
	l.saveScreen(a, n)
	// End the agent (when it still runs) and any orphans it left in its process group.
	if a.pid > 0 {
		l.cfg.Procs.KillGroup(a.pid, l.cfg.KillGrace)
	}
	if kind != endExited {
		if !a.gone {
			a = l.settled()
		}
	}
	if rc.Enabled {
		if l.gateCommits(st, rc) {
			return
		}
	}
	if _, stop := l.stopRules(st, a.code, kind == endExited); stop {
		return
	}
	failed, exitDesc := true, "unknown"
	switch kind {
	case endExited:
		if a.code != nil {
			exitDesc = fmt.Sprint(*a.code)
			failed = *a.code != 0
		}
	case endInactive:
		failed, exitDesc = false, "inactive"
	case endHung:
		exitDesc = "hung"
	case endIterationTimeout:
		exitDesc = "iteration timeout"
	case endReadyTimeout:
		exitDesc = "ready timeout"
	}
	cur, err := l.update(func(s *State) error {
		s.LastExitCode = a.code
		s.Phase = PhaseEnded
		if failed {
			s.ConsecutiveFailures++
			s.TotalFailures++
		} else if kind == endExited {
			s.ConsecutiveFailures = 0
		}
		return nil
	})
	if err != nil {
		return
	}
	l.cfg.Dir.UpdateRegent(func(rs *RegentState) { rs.ConsecutiveErrors = cur.ConsecutiveFailures })
	if kind == endInactive {
		if n >= cur.MaxIterations && cur.Status == StatusRunning {
			l.complete(cur)
		}
		return
	}
	if !failed {
		l.say("iteration %d completed (exit: %s, duration: %s)", n, exitDesc, FormatDuration(dur))
		l.event("END", "iteration %d exit=%s duration=%s", n, exitDesc, CompactDuration(dur))
		return
	}
	l.event("FAIL", "iteration %d exit=%s duration=%s", n, exitDesc, CompactDuration(dur))
	if cur.ConsecutiveFailures >= rc.MaxFailures {
		l.say("%d consecutive failures, stopping loop", cur.ConsecutiveFailures)
		l.stop(StatusFailed, "consecutive_failures", fmt.Sprintf("%d consecutive failures, stopping loop", cur.ConsecutiveFailures))
		l.escalate(cur, a, fmt.Sprintf("%d consecutive failures (last exit: %s)", cur.ConsecutiveFailures, exitDesc))
		return
	}
	if n >= cur.MaxIterations {
		l.say("iteration %d failed (exit: %s)", n, exitDesc)
		return
	}
	wait := Backoff(cur.ConsecutiveFailures)
	if rc.Enabled && rc.RetryBackoffSeconds > 0 {
		wait = time.Duration(rc.RetryBackoffSeconds) * time.Second
	}
	l.say("iteration %d failed (exit: %s), retrying in %ds (attempt %d/%d)", n, exitDesc, int(wait.Seconds()), cur.ConsecutiveFailures, rc.MaxFailures)
	until := l.cfg.Clock.Now().Add(wait)
	_, _ = l.update(func(s *State) error {
		if s.Phase == PhaseEnded {
			s.Phase = PhaseBackoff
			s.BackoffUntil = until.Format(TimeFormat)
		}
		return nil
	})
}

// stopRules applies the rules that end a loop without counting a failure, before a run (code
// nil, ran false) and after one: the DONE file (success), a DONE directory (error), exit code
// 42 or the WAIT_WITHOUT_RESTART file (stopped, waiting), and fatal start errors.
func (l *Loop) stopRules(st *State, code *int, ran bool) (int, bool) {
	rc := l.regent(st)
	present, err := l.cfg.Dir.doneMarker()
	if err != nil {
		l.say("fatal error: %v", err)
		l.stop(StatusFailed, "done_is_directory", err.Error())
		l.escalate(st, agent{}, err.Error())
		return 1, true
	}
	if present {
		l.say("task completed (DONE marker present), stopping loop")
		l.event("DONE", "DONE file present at %s", l.cfg.Dir.DoneFile())
		l.stop(StatusStopped, "done_file", "")
		return 0, true
	}
	if l.cfg.Dir.waitMarker() || (code != nil && *code == ExitWaitWithoutRestart) {
		why := "WAIT_WITHOUT_RESTART file present"
		if code != nil && *code == ExitWaitWithoutRestart {
			why = "agent exited with 42"
		}
		l.say("wait-without-restart signal detected (%s), stopping loop", why)
		l.event("WAIT", "%s", why)
		l.stop(StatusStopped, "wait_without_restart", "")
		return 0, true
	}
	if ran && code != nil && (*code == 126 || *code == 127) {
		reason := fatalReason(l.cfg.Workers.ExitPath(l.cfg.Name), *code)
		l.say("fatal error: %s, stopping loop (no retries)", reason)
		l.stop(StatusFailed, "fatal_error", reason)
		if rc.Enabled {
			l.escalate(st, agent{}, "fatal error: "+reason)
		}
		return 1, true
	}
	return 0, false
}

// fatalReason names the problem behind exit 126/127: the wrapper writes it on the exit file's
// second line when it cannot start the agent; a shell reports the same codes.
func fatalReason(exitFile string, code int) string {
	data, _ := os.ReadFile(exitFile)
	lines := strings.SplitN(strings.TrimSpace(string(data)), "\n", 2)
	if len(lines) == 2 && strings.TrimSpace(lines[1]) != "" {
		return strings.TrimSpace(lines[1])
	}
	if code == 127 {
		return "executable not found (exit 127)"
	}
	return "permission denied (exit 126)"
}

// escalate reports a loop that gave up: a line in the log and, when configured, a webhook.
func (l *Loop) escalate(st *State, a agent, reason string) {
	rc := l.regent(st)
	l.event("ESCALATE", "%s", reason)
	l.cfg.Dir.UpdateRegent(func(rs *RegentState) { rs.Escalations++ })
	if !rc.Enabled || rc.Webhook == "" {
		l.regentSay("%s — stopping and reporting", reason)
		return
	}
	last := l.lastOutput(a, st.CurrentIteration, 20)
	cur, _ := l.cfg.Dir.Load()
	status := st.Status
	if cur != nil {
		status = cur.Status
	}
	err := PostEscalation(rc.Webhook, Escalation{Worker: l.cfg.Name, Iteration: st.CurrentIteration, Reason: reason,
		Status: status, LastLines: last, Time: l.cfg.Clock.Now().UTC().Format(time.RFC3339)})
	if err != nil {
		l.regentSay("%s — webhook failed: %v", reason, err)
		return
	}
	l.regentSay("%s — escalated to webhook", reason)
}

// lastOutput returns the last n non-blank lines the agent showed: from the screen saved when
// the iteration ended, or else from the pane. tmux's own "Pane is dead" note is left out.
func (l *Loop) lastOutput(a agent, iteration, n int) []string {
	var lines []string
	if data, err := os.ReadFile(l.cfg.Dir.ScreenPath(iteration)); err == nil {
		lines = screen.Lines(string(data))
	} else if a.paneID != "" {
		lines, _ = l.capture(a, 0)
	}
	out := []string{}
	for _, ln := range lines {
		if strings.TrimSpace(ln) == "" || tmux.IsDeadNote(ln) {
			continue
		}
		out = append(out, ln)
	}
	return lastN(out, n)
}

func lastN(lines []string, n int) []string {
	if len(lines) > n {
		return append([]string{}, lines[len(lines)-n:]...)
	}
	return append([]string{}, lines...)
}

// gateCommits runs the test command after an iteration that made commits and, with rollback
// on, reverts exactly that iteration's commits when it broke the tests. It reports true when
// the loop must stop (the test command cannot run at all).
func (l *Loop) gateCommits(st *State, rc RegentConfig) bool {
	// As the Regent's spec has it: without rollback the test run is skipped entirely.
	if rc.TestCommand == "" || !rc.RollbackOnTestFailure || st.IterationStartCommit == "" {
		return false
	}
	w, err := l.worker()
	if err != nil {
		return false
	}
	commits, err := git.CommitsSince(w.Cwd, st.IterationStartCommit)
	if err != nil || len(commits) == 0 {
		return false
	}
	head := commits[0]
	l.cfg.Dir.UpdateRegent(func(rs *RegentState) { rs.LastCommit = short(head) })
	_, terr := runTests(w.Cwd, rc.TestCommand, 30*time.Minute)
	if terr == nil {
		l.regentSay("Tests passed — commit %s kept", short(head))
		l.event("TESTS", "passed at %s", short(head))
		return false
	}
	if errors.Is(terr, errTestConfig) {
		l.regentSay("test command cannot run: %v — configuration error, stopping loop", terr)
		l.stop(StatusFailed, "test_command_error", terr.Error())
		l.escalate(st, agent{}, "test command cannot run: "+terr.Error())
		return true
	}
	if already, err := testsFailedAt(w.Cwd, st.IterationStartCommit, rc.TestCommand, 30*time.Minute); err == nil && already {
		l.regentSay("Tests failed, but they were already failing before this iteration (at %s) — commits kept", short(st.IterationStartCommit))
		l.event("TESTS", "failed at %s and already at %s; nothing reverted", short(head), short(st.IterationStartCommit))
		return false
	}
	for _, c := range commits {
		l.regentSay("Tests failed — reverting commit %s", short(c))
	}
	reverted, err := git.Revert(w.Cwd, commits)
	for _, c := range reverted {
		l.event("ROLLBACK", "reverted %s", short(c))
	}
	l.cfg.Dir.UpdateRegent(func(rs *RegentState) {
		rs.Rollbacks += len(reverted)
		rs.LastCommit = short(git.Head(w.Cwd))
	})
	if err != nil {
		l.regentSay("could not revert: %v", err)
		return false
	}
	if rc.Push {
		if err := git.Push(w.Cwd); err != nil {
			l.regentSay("git push failed: %v", err)
		} else {
			l.regentSay("pushed the reverts")
		}
	}
	return false
}

// backoff waits out the retry delay; a pause or stop ends the wait at once.
func (l *Loop) backoff(st *State) {
	until := ParseTime(st.BackoffUntil)
	for l.cfg.Clock.Now().Before(until) {
		if l.abortRequested() {
			l.abortNow(agent{dead: true})
			break
		}
		if s := l.statusNow(); s != StatusRunning {
			break
		}
		d := until.Sub(l.cfg.Clock.Now())
		if d > l.cfg.StatusPoll {
			d = l.cfg.StatusPoll
		}
		l.cfg.Clock.Sleep(d)
	}
	_, _ = l.update(func(s *State) error {
		if s.Phase == PhaseBackoff {
			s.Phase = PhaseEnded
			s.BackoffUntil = ""
		}
		return nil
	})
}

// ReadPrompt reads the prompt file, with the seed's messages for a missing or unreadable file.
func ReadPrompt(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("prompt file not found: %s", path)
		}
		return "", fmt.Errorf("cannot read prompt file: %s", path)
	}
	return string(data), nil
}
