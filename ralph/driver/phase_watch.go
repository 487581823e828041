package driver

import (
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
)

// Watching a working agent: the driver samples the process, the screen and the stop files,
// and the policy (ralph/supervision_policy.go) says when what it sees ends the iteration.

// agentWatch watches a working agent until its iteration ends. It is a phase of its own, with
// the pane's feed, the floods and the tmux server's silences it meets, so that how often
// what is looked at, and what a look concludes, is in one place; what it needs of the rest
// of the loop is the list of watchNeeds.
type agentWatch struct {
	cfg      *Config
	pats     *patterns // the done pattern, its matcher, and the compaction's
	rec      *recorder
	pane     *paneFollower
	view     *agentView      // the agent as it is now or was last seen, and its screen
	ending   *endOfIteration // where the iteration ends, whatever the watch saw end it
	outage   *outage
	signals  *signalWatch // the agent's own signals, whose hooks a finishing turn waits for
	features features     // the features' looks, between the watch's own
	drv      watchNeeds
}

// watchNeeds are what the watch asks of the loop: its status and its waits, the abort that
// ends the agent at once, and the transition that carries out what the context use decides.
type watchNeeds interface {
	iteration() int
	statusNow() ralph.Status
	statusPoll() time.Duration
	exitWatch(pid int) (<-chan struct{}, func())
	wait(d time.Duration, exited <-chan struct{}, woken <-chan struct{})
	takeFilesChanged() bool
	abortRequested() bool
	abortNow(a agent)
	transition(st *ralph.State, a agent, dec ralph.Decision) *ralph.State
}

// screenWatch is what the driver remembers between looks at the screen.
type screenWatch struct {
	facts     ralph.WatchFacts
	lastHash  string        // everything on screen
	lastSubst string        // the screen without spinners and counters
	every     time.Duration // how often the screen is captured
	// When the last change and progress were written to the loop's files: a screen that
	// keeps moving is recorded every saveScreenChange, not at every look.
	savedChange, savedProgress time.Time
	feed                       *paneFeed // the pane's output, where it is followed
	seen                       uint64    // the feed's reads when the screen was last captured
	looked                     time.Time // when the screen was last captured
	probed                     time.Time // when the server was last asked about the pane
	// Through the feed: when the screen was captured before, and when the last output read
	// before this capture arrived (see datedChange).
	prevLook, outAt time.Time
	flood           floodPause // the feed stopped while the pane floods
}

// changeAt dates a change (or, through the feed, a possible one) that a look found at now.
func (w *screenWatch) changeAt(now time.Time, changed bool) time.Time {
	if w.feed == nil {
		if changed {
			return now
		}
		return w.facts.LastChange
	}
	return datedChange(w.facts.LastChange, now, w.prevLook, w.outAt, changed)
}

// saveScreenChange bounds how often a moving screen's last change is written down (a new
// monitor takes it up from there; status shows it).
const saveScreenChange = 2 * time.Second

// watchTimes are when the watch next looks at each thing.
type watchTimes struct {
	screen, status time.Time
}

// watch follows a working agent until it exits, goes quiet, hangs, prints the done marker,
// creates the DONE file, runs out of time, or the loop is stopped.
func (aw *agentWatch) watch(st *ralph.State) {
	a := aw.view.now()
	aw.pats.ensureMatcher(aw.cfg.Dir.PromptCopy())
	w := aw.newScreenWatch(st)
	w.feed = aw.pane.follow(a)
	now := aw.cfg.Clock.Now()
	next := watchTimes{screen: now, status: now}
	aw.features.watchStarted(st, now)
	watched := a.pid
	exited, unwatch := aw.drv.exitWatch(watched)
	defer func() { unwatch() }()
	for {
		if aw.drv.abortRequested() {
			aw.drv.abortNow(a)
			return
		}
		w.facts.Now = aw.cfg.Clock.Now()
		if aw.watchOnce(st, &a, &w, &next) {
			return
		}
		if a.pid != watched {
			// A new look at the agent found another process (its pane was respawned).
			unwatch()
			watched = a.pid
			exited, unwatch = aw.drv.exitWatch(watched)
			if !w.flood.holding(aw.cfg.Clock.Now()) {
				w.feed = aw.pane.follow(a)
			}
		}
		aw.drv.wait(aw.untilNextLook(st, next), exited, w.wakeup())
		if aw.drv.takeFilesChanged() {
			next.status = aw.cfg.Clock.Now() // read them now, not at the next StatusPoll
		}
	}
}

// watchOnce takes one look at everything that is due and can end the iteration, and reports
// whether it ended.
func (aw *agentWatch) watchOnce(st *ralph.State, a *agent, w *screenWatch, next *watchTimes) bool {
	now := w.facts.Now
	if !now.Before(next.status) {
		next.status = now.Add(aw.drv.statusPoll())
		if aw.drv.statusNow() == ralph.StatusStopped {
			aw.ending.stoppedWhileWorking(st, *a)
			return true
		}
		if present, err := aw.cfg.Dir.DoneMarker(); err != nil || present {
			aw.ending.end(st, *a, ralph.EndDoneFile)
			return true
		}
		if aw.features.statusLook(st, *a, w) {
			return true
		}
	}
	if a.dead || !aw.cfg.Procs.Alive(a.pid) {
		aw.ending.end(st, aw.view.settled(), ralph.EndExited)
		return true
	}
	if aw.features.agentLook(st, *a, w) {
		return true
	}
	if aw.outage.lasting() {
		return aw.outage.whileSilent(a, w, next)
	}
	aw.floodTurn(*a, w, next)
	if w.feed != nil {
		return aw.screenFed(st, a, w, next)
	}
	return aw.screenPolled(st, a, w, next)
}

// screenPolled looks at a pane whose output is not followed when its look is due, and sets
// the next one (see nextScreenPoll). It reports whether the iteration ended.
func (aw *agentWatch) screenPolled(st *ralph.State, a *agent, w *screenWatch, next *watchTimes) bool {
	now := w.facts.Now
	if now.Before(next.screen) {
		return false
	}
	changed := w.facts.LastChange
	ended := aw.lookAtScreen(st, a, w)
	w.every = nextScreenPoll(w.every, w.facts.LastChange != changed, screenEvery(aw.cfg.ScreenPoll, w.facts.Inactivity))
	next.screen = now.Add(w.every)
	if w.flood.holding(now) {
		next.screen = now.Add(max(w.every, floodScreenPoll))
	}
	if at := ralph.QuietAt(w.facts); at.After(now) && at.Before(next.screen) {
		next.screen = at // looked at when it would have been quiet too long, not later
	}
	return ended
}

// nextScreenPoll is how long until the next capture: soon after the screen moved (a done
// marker is seen within moments of appearing), then twice as long after each look that found
// it unchanged, up to base (an idle agent costs a capture every base).
func nextScreenPoll(cur time.Duration, moved bool, base time.Duration) time.Duration {
	if moved {
		return min(minScreenPoll, base)
	}
	return min(max(2*cur, minScreenPoll), base)
}

// untilNextLook is how long the watch waits before its next look: until the first thing falls
// due, at most ExitPoll (an agent's end cuts the wait short where it can be watched).
func (aw *agentWatch) untilNextLook(st *ralph.State, next watchTimes) time.Duration {
	now := aw.cfg.Clock.Now()
	first := now.Add(aw.cfg.ExitPoll)
	for _, t := range aw.features.lookDue(st, []time.Time{next.status, next.screen}) {
		if t.Before(first) {
			first = t
		}
	}
	return max(first.Sub(now), time.Millisecond)
}

// screenEvery is how often a still screen is captured: every ScreenPoll (the seed's 2 s), more
// often for a short inactivity timeout, so that a quiet agent is ended within a twentieth of it.
func screenEvery(poll, inactivity time.Duration) time.Duration {
	return min(poll, max(minScreenPoll, inactivity/20))
}

// minScreenPoll bounds how often a screen is captured.
const minScreenPoll = 250 * time.Millisecond

func (aw *agentWatch) newScreenWatch(st *ralph.State) screenWatch {
	now := aw.cfg.Clock.Now()
	started := ralph.ParseTime(st.LastIterationStarted)
	if started.IsZero() {
		started = now
	}
	lastChange := now
	if t := ralph.ParseTime(st.LastScreenChange); !t.IsZero() && !t.Before(started) {
		lastChange = t
	}
	f := ralph.WatchFacts{Now: now, Started: started, LastChange: lastChange, LastProgress: lastChange}
	f.Inactivity, f.Hang, f.Limit = ralph.WatchLimits(limits(st))
	return screenWatch{facts: f, every: screenEvery(aw.cfg.ScreenPoll, f.Inactivity)}
}

// lookAtScreen captures the screen, notes what changed, and ends the iteration when the done
// pattern shows or the agent has been quiet or hung for too long. It reports whether the
// iteration ended.
func (aw *agentWatch) lookAtScreen(st *ralph.State, a *agent, w *screenWatch) bool {
	lines, err := aw.view.capture(*a, aw.cfg.HistoryLines)
	if aw.outage.notAnswering(err) {
		return false
	}
	if err != nil {
		*a = aw.view.now()
		return false
	}
	if aw.pats.doneRE != nil && aw.pats.matcher.Count(lines) > st.DoneBaseline {
		aw.letTurnFinish(*a, lines, w.feed)
		aw.ending.end(st, *a, ralph.EndDoneMarker)
		return true
	}
	if aw.watchContext(st, *a, lines) {
		return true
	}
	if aw.features.screenLook(st, *a, lines) {
		return true
	}
	now := w.facts.Now
	if h := screen.ActivityHashOf(lines); h != w.lastHash {
		if w.lastHash != "" {
			w.facts.LastChange = w.changeAt(now, true)
			if now.Sub(w.savedChange) >= saveScreenChange {
				w.savedChange = now
				at := w.facts.LastChange.Format(ralph.TimeFormat)
				aw.rec.note(func(s *ralph.State) error { s.LastScreenChange = at; return nil })
			}
		}
		w.lastHash = h
	} else if w.lastHash != "" {
		w.facts.LastChange = w.changeAt(now, false)
	}
	if h := screen.SubstantiveHashOf(lines); h != w.lastSubst {
		if w.lastSubst != "" {
			w.facts.LastProgress = now
			if now.Sub(w.savedProgress) >= saveScreenChange {
				w.savedProgress = now
				aw.rec.updateSupervision(func(rs *ralph.SupervisionState) { rs.LastOutputAt = now.UTC().Format(time.RFC3339) })
			}
		}
		w.lastSubst = h
	}
	if ending, ok := ralph.Quiet(w.facts); ok {
		aw.ending.end(st, *a, ending)
		return true
	}
	return false
}

// watchContext reads the agent's context use off the screen and carries out what the policy
// makes of it: nothing, a nudge to wrap up, or the end of the iteration. It reports whether
// the iteration ended.
func (aw *agentWatch) watchContext(st *ralph.State, a agent, lines []string) bool {
	if st.MaxContext <= 0 {
		return false
	}
	cur, err := aw.cfg.Dir.Load()
	if err != nil {
		return false
	}
	used, seen := screen.ContextUsed(lines)
	if aw.pats.compaction == nil {
		prompt, _ := state.ReadFile(aw.cfg.Dir.PromptCopy())
		aw.pats.compaction = screen.NewDoneMatcher(screen.CompactionPattern, string(prompt))
	}
	act, ending, dec := ralph.ContextCheck(ralph.ContextFacts{Iteration: st.CurrentIteration, Max: st.MaxContext, Used: used,
		Seen: seen, Compacting: aw.pats.compaction.Count(lines) > 0, Nudged: cur.ContextNudgeSent})
	if dec.Context != nil && (dec.Context.Used != cur.ContextUsed || dec.Context.Nudged) {
		aw.drv.transition(st, a, dec)
	}
	switch act {
	case ralph.ContextNudge:
		unlock := lockInput(aw.cfg)
		if err := aw.cfg.Tmux.Paste(a.paneID, ralph.ContextNudgeText(used), true); err == nil {
			aw.cfg.Clock.Sleep(aw.cfg.InputSettle)
			_ = aw.cfg.Tmux.SendKeys(a.paneID, "Enter")
		}
		unlock()
	case ralph.ContextEnd:
		aw.ending.end(st, a, ending)
		return true
	}
	return false
}

// An agent often prints its done marker before its turn is over: the rest of its answer, and
// its own records (the transcript its cost is read from) come a moment later. It gets that
// moment before it is ended: until its screen holds still between two captures, at most
// turnSettle.
const (
	turnSettle     = 3 * time.Second
	turnSettlePoll = 200 * time.Millisecond
)

func (aw *agentWatch) letTurnFinish(a agent, lines []string, feed *paneFeed) {
	aw.signals.letHooksFinish(a)
	if feed != nil {
		aw.settleFed(a, feed)
		return
	}
	last := screen.ActivityHashOf(lines)
	deadline := aw.cfg.Clock.Now().Add(turnSettle)
	for aw.cfg.Clock.Now().Before(deadline) {
		aw.cfg.Clock.Sleep(turnSettlePoll)
		if !aw.cfg.Procs.Alive(a.pid) {
			return
		}
		cur, err := aw.view.capture(a, aw.cfg.HistoryLines)
		if err != nil {
			return
		}
		h := screen.ActivityHashOf(cur)
		if h == last {
			return
		}
		last = h
	}
}
