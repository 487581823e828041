package driver

import (
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
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
	// KillTagged ends every process started after mark (0: any) whose environment holds tag
	// (KEY=VALUE), and says how many there were.
	KillTagged(tag string, mark int, grace time.Duration) int
	// Mark is a mark of the processes started so far, for KillTagged (0 when there is none).
	Mark() int
}

// Config is everything a monitor needs to drive one loop.
type Config struct {
	Name    string
	Dir     ralph.Dir
	Workers *state.Dir
	Tmux    tmux.Client
	Procs   Procs
	Clock   Clock
	// Out receives the loop's "[ralph] ..." messages; Detail the output of checkers and hooks
	// (nil: Out).
	Out    io.Writer
	Detail io.Writer
	// RunWrapper is the argv prefix of swarm's process wrapper, which records the agent's exit
	// code in a file and can feed a file to its standard input:
	// wrapper... --exit-file F [--stdin P] -- command...
	RunWrapper []string
	// Output, when set, copies the agent's pane output to the loop (see phase_feed.go);
	// nil: the screen is polled.
	Output OutputPiper
	// ExtraEnv is added to the agent's environment at every iteration (KEY=VALUE).
	ExtraEnv []string
	// PaneShell starts the agents after the first through a long-lived shell in the pane
	// instead of a new pane process each (see pane_shell.go).
	PaneShell bool

	// Intervals; zero means the default.
	ExitPoll     time.Duration // how often the agent's process is checked (default 200ms)
	ScreenPoll   time.Duration // how often the screen is captured (default 2s, as the seed says)
	StatusPoll   time.Duration // how often the stored status and DONE file are checked (default 500ms)
	CostPoll     time.Duration // how often a loop with a budget reads what it has cost (default 10s)
	ReadyPoll    time.Duration // screen polling while waiting for the prompt (default 200ms)
	KillGrace    time.Duration // SIGTERM to SIGKILL when ending an agent (default 5s)
	InputSettle  time.Duration // between paste and Enter (default 150ms)
	ConfirmAfter time.Duration // how long to wait for the agent to react to Enter (default 3s)
	HistoryLines int           // scrollback searched for the done pattern (default 2000)

	// Context, once cancelled, ends the agent at once and stops the loop (paused); nil: never.
	Context context.Context
	// MonitorLock is the lock that makes this the loop's only monitor; it is released while
	// the loop lock is held when a paused loop's monitor leaves.
	MonitorLock *state.Lock

	record *workerMemory // the worker's record as last read whole (worker_record.go)
}

func (c *Config) defaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	// A polling monitor wakes about five times a second: cheap enough to stay far below 1% of
	// a core, often enough that the next iteration starts well within a second of an exit.
	def(&c.ExitPoll, 200*time.Millisecond)
	def(&c.ScreenPoll, 2*time.Second)
	def(&c.StatusPoll, 500*time.Millisecond)
	def(&c.CostPoll, 10*time.Second)
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
	if c.Detail == nil {
		c.Detail = c.Out
	}
	if c.record == nil {
		c.record = &workerMemory{}
	}
}

// Loop is one running monitor.
type Loop struct {
	cfg      Config
	patterns // the loop's done and ready patterns, compiled
	aborted  bool
	released bool          // a paused loop's monitor gave up its lock and must leave
	lastGood *ralph.State  // the state as last read, to rebuild it from when the file is corrupted
	rec      *recorder     // what the loop says and records, and the writes that failed
	pane     *paneFollower // the agent's output, where it is followed
	view     *agentView    // the agent as seen through tmux, and what ended it
	shell    *paneShell    // the pane's shell, where agents start through one
	files    *fileWatch    // tells when the loop's files change, where the system can
	// filesChanged: the last wait ended because the loop's files changed.
	filesChanged bool
	notify       *notifications  // the loop's notifications, which the driver sends too
	features     features        // the loop's features, called at the points of its life
	signals      *signalWatch    // the agent's own signals, which the delivery asks about too
	outage       *outage         // the tmux server's silences
	delivery     *promptDelivery // the delivery of each iteration's prompt
	watcher      *agentWatch     // the watch of a working agent
	ending       *endOfIteration // every ending of an iteration
}

// New prepares a loop; Run drives it.
func New(cfg Config) *Loop {
	cfg.defaults()
	l := &Loop{cfg: cfg}
	l.rec = newRecorder(&l.cfg, l)
	l.shell = &paneShell{cfg: &l.cfg}
	drv := facade{l}
	l.notify = newNotifications(drv)
	limits := &usageLimits{drv: drv}
	apiErrors := &apiErrors{drv: drv}
	l.signals = &signalWatch{drv: drv, limits: limits, apiErrors: apiErrors, notify: l.notify, wrapper: cfg.RunWrapper}
	apiErrors.ownWord = l.signals.namesErrors
	// The order is that of the features at each point: which of two endings seen at the same
	// look wins, which lines come first.
	l.features = features{l.notify, apiErrors, limits, &pace{drv: drv}, l.signals, &iterationDeadline{drv: drv},
		&costs{drv: drv, poll: cfg.CostPoll}, &testGate{drv: drv}, &checkers{drv: drv}, &userHooks{drv: drv},
		&chains{drv: drv}, &agentMode{drv: drv, notify: l.notify}}
	l.outage = &outage{clock: cfg.Clock, procs: cfg.Procs, dir: cfg.Dir, rec: l.rec, notify: l.notify, poll: cfg.ScreenPoll}
	l.view = &agentView{cfg: &l.cfg, rec: l.rec, shell: l.shell, outage: l.outage}
	l.outage.drv = l.view
	l.ending = &endOfIteration{cfg: &l.cfg, pats: &l.patterns, rec: l.rec, view: l.view, features: l.features, drv: l}
	l.pane = &paneFollower{output: cfg.Output, dir: cfg.Dir, pats: &l.patterns}
	l.delivery = &promptDelivery{cfg: &l.cfg, pats: &l.patterns, pane: l.pane, view: l.view, ending: l.ending,
		rec: l.rec, notify: l.notify, signals: l.signals, drv: l}
	l.watcher = &agentWatch{cfg: &l.cfg, pats: &l.patterns, rec: l.rec, pane: l.pane, view: l.view, ending: l.ending,
		outage: l.outage, signals: l.signals, features: l.features, drv: l}
	return l
}

// limits are the loop's settings that its decisions depend on.
func limits(st *ralph.State) ralph.Limits {
	return ralph.Limits{MaxIterations: st.MaxIterations, InactivitySeconds: st.InactivityTimeout, MaxContext: st.MaxContext,
		StagnationLimit: st.StagnationLimit, Checks: len(st.Checks), MaxCost: st.MaxCost,
		LimitWait: time.Duration(st.LimitWait) * time.Second, LimitMargin: time.Duration(st.LimitMargin) * time.Second, Supervision: ralph.EffectiveSupervision(st.Supervision)}
}

// transition carries a decision out: the state and its log events in one step, then what it
// says, then its effects on the agent and the outside world.
func (l *Loop) transition(st *ralph.State, a agent, dec ralph.Decision) *ralph.State {
	// Supervision lines go in the event log with the decision's own events, in one write.
	dec.Events = slices.Clip(dec.Events)
	for _, ln := range dec.Lines {
		if ln.Supervision {
			dec.Events = append(dec.Events, ralph.Event{Kind: supervisionEvent, Text: ln.Text})
		}
	}
	// Said under the lock once recorded (a reader then never finds the state without the
	// lines), or, when its events could not be logged, after. A decision whose state could
	// not be written is not said: it is taken again, and said then (on a full disk, once,
	// not at every retry).
	said := false
	cur, err := l.cfg.Dir.ApplyThen(l.cfg.Clock.Now(), dec, func() { said = true; l.rec.sayLines(dec.Lines) })
	l.rec.recorded(err)
	if !said && !unrecorded(err) {
		l.rec.sayLines(dec.Lines)
	}
	if dec.EndAgent {
		l.view.end(a, l.cfg.KillGrace)
	}
	if cur == nil {
		cur = st
	}
	l.features.decided(cur, a, dec)
	return cur
}

// fail stops the loop as failed for a reason that is the loop's own problem (its prompt, its
// files, its configuration) and returns the error for the caller to report.
func (l *Loop) fail(reason string, err error) error {
	l.stopWith(ralph.StatusFailed, reason, err.Error())
	return err
}

// writeRetry is the pause between attempts while the loop's files cannot be written.
const writeRetry = 2 * time.Second

// WriteBackoff is the pause before the nth retry in a row of a write that failed (a full
// disk), by a loop or by the Regent claiming one: doubled from writeRetry each time,
// at most maxWriteRetry.
func WriteBackoff(n int) time.Duration {
	d := writeRetry
	for i := 1; i < n && d < maxWriteRetry; i++ {
		d *= 2
	}
	return min(d, maxWriteRetry)
}

// maxWriteRetry bounds the pause between retries while the loop's files cannot be written.
const maxWriteRetry = 30 * time.Second

// errServerGone means the tmux server the loop runs on is gone.
var errServerGone = errors.New("the tmux server is gone")

// Run drives the loop until it is stopped, fails, finishes or is paused with no agent left
// running. It returns the status the loop ended in, and the error that ended it when it
// failed for a reason of its own (the caller reports it).
func (l *Loop) Run() (ralph.Status, error) {
	defer l.pane.unfollow()
	defer l.shell.dismiss(l.statusNow)
	l.files = l.watchOwnFiles()
	defer l.files.close()
	// A last chance for what a full disk kept out of the logs (see UnloggedError).
	defer l.rec.writePendingAtEnd()
	l.features.runStarted()
	for {
		status, err := l.run()
		if status == ralph.StatusPaused {
			l.features.paused()
		}
		if status != ralph.StatusStopped && status != ralph.StatusFailed {
			return status, err
		}
		l.finish()
		// A chain goes on with its next step's loop, an agent with its next stage or spec,
		// in the same worker.
		if err != nil || !l.features.nextLoop() {
			return status, err
		}
	}
}

func (l *Loop) run() (ralph.Status, error) {
	// Whoever drives the loop, a background monitor or a foreground one, is on record.
	if st, err := l.cfg.Dir.Load(); err == nil {
		l.rec.updateSupervision(func(rs *ralph.SupervisionState) { rs.PID, rs.Iteration = os.Getpid(), st.CurrentIteration })
		if st.RunID == "" {
			// A loop begun before runs had an id gets one, for its iteration records.
			l.rec.update(func(s *ralph.State) error { s.RunID = uuid.NewString(); return nil })
		}
	}
	for {
		st, err := l.cfg.Dir.Load()
		if err != nil {
			return ralph.StatusFailed, l.lostState(err)
		}
		l.lastGood = st
		if err := l.compile(st); err != nil {
			return ralph.StatusFailed, l.fail("invalid_config", err)
		}
		if st.Status == ralph.StatusStopped || st.Status == ralph.StatusFailed {
			return st.Status, nil
		}
		if l.aborted {
			return st.Status, nil
		}
		// The last decision may not have been recorded: take a breath before acting on the
		// old state again, longer each time, so a full disk costs a retry now and then, not
		// a spin (nor the room its own log lines would take).
		l.rec.retryWrites()
		if l.abortRequested() && (st.Phase == ralph.PhaseEnded || st.Phase == "") {
			// Told to stop between iterations: start no agent (a working one is ended by
			// the watch, a waiting loop by its wait).
			l.abortNow(agent{dead: true})
			continue
		}
		if err := l.step(st); err != nil {
			return l.statusNow(), err
		}
		if l.released {
			return ralph.StatusPaused, nil
		}
	}
}

// step moves the loop on by one phase.
func (l *Loop) step(st *ralph.State) error {
	switch st.Phase {
	case ralph.PhaseStarting, ralph.PhaseDelivering:
		return l.delivery.redeliver(st)
	case ralph.PhaseSubmitting:
		l.delivery.resumeDelivery(st)
	case ralph.PhaseWorking:
		l.watcher.watch(st)
	case ralph.PhaseBackoff:
		l.backoff(st)
	case ralph.PhaseWaiting:
		l.waitForReset(st)
	default:
		if st.Status == ralph.StatusPaused {
			l.released = l.releaseIfPaused()
			return nil
		}
		if dec, veto := l.features.beforeStart(st); veto {
			l.transition(st, agent{dead: true}, dec)
			return nil
		}
		c := ralph.Counters{Iteration: st.CurrentIteration, TotalFailures: st.TotalFailures}
		m := l.markers()
		if l.features.stopFiles(st, &m) {
			return nil
		}
		if dec, ok := ralph.BeforeIteration(c, limits(st), m); !ok {
			l.transition(st, agent{dead: true}, dec)
			return nil
		}
		return l.start(st)
	}
	return nil
}

// markers looks for the stop files.
func (l *Loop) markers() ralph.Markers {
	path, present, err := l.cfg.Dir.FoundDone()
	m := ralph.Markers{DonePath: path, WaitFile: l.cfg.Dir.WaitMarker()}
	if err != nil {
		m.DoneFileErr = err.Error()
	}
	m.DoneFile = present
	return m
}

// releaseIfPaused lets a paused loop's monitor exit. It gives up the monitor lock while holding
// the loop lock, so a concurrent resume sees either a live monitor that will go on, or none and
// starts one: never a monitor that is about to leave.
func (l *Loop) releaseIfPaused() bool {
	released := false
	_, _ = l.cfg.Dir.Locked(func(st *ralph.State) error {
		if st.Status == ralph.StatusPaused {
			released = true
			l.cfg.MonitorLock.Unlock()
		}
		return nil
	})
	return released
}
