package driver

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/screen"
)

// The driver's side of the agents' own signals (ralph/signals.go): reading the events file the
// recorder appends to, and carrying out what OnSignal makes of each event. The file is in the
// loop's directory, whose changes wake the loop already: an event is read at once, with no
// polling of its own.

// signalServices are what following the agents' own signals asks of the driver: the one slice of
// its services (services.go) it uses.
type signalServices interface {
	dir() ralph.Dir
	name() string
	clock() Clock
	say(format string, args ...any)
	logEvent(kind, text string)
	update(fn func(*ralph.State) error)
	endIteration(st *ralph.State, a agent, kind ralph.Ending)
	abortRequested() bool
	worker() (*state.Worker, error)
	alive(pid int) bool
	capture(a agent, history int) ([]string, error)
	captureHistory(a agent) ([]string, error)
	screenKind(lines []string) screen.Kind
	doneShown(st *ralph.State, message string, lines []string) bool
	pressKeys(a agent, keys ...string) error // a dangerous command refused (feature_dangerous.go)
}

// signalWatch is the feature that follows the agents' own signals: it ends an iteration as
// they say, names a permission the agent waits for, and tells the delivery when the agent
// is ready for its prompt and took it.
type signalWatch struct {
	drv    signalServices
	limits *usageLimits // a usage limit the agent signals ends the iteration as one on screen
	// apiErrors: an API error the agent signals ends the iteration as one on screen.
	apiErrors *apiErrors
	// notify sends the notification of a permission the agent waits for.
	notify *notifications
	// wrapper is swarm's process wrapper, whose recorder the agent's hooks run.
	wrapper []string
	events  eventReader
}

func (sg *signalWatch) featureName() string { return "signals" }

// agentStarting forgets the last agent's events: the new agent's events file starts empty.
func (sg *signalWatch) agentStarting() { sg.events = eventReader{} }

// statusLook acts on the events the agent recorded since the last look.
func (sg *signalWatch) statusLook(st *ralph.State, a agent, w *screenWatch) bool {
	return sg.watchSignals(st, a, w)
}

// agentLook ends the iteration whose turn ended while the agent was busy, once it is idle.
func (sg *signalWatch) agentLook(st *ralph.State, a agent, w *screenWatch) bool {
	return sg.turnOver(st, a)
}

// iterationEnding notes the moments the agent reported that no look read before its
// iteration ended (a compaction just before the done marker on screen), and forgets a
// permission it asked for.
func (sg *signalWatch) iterationEnding(st *ralph.State) {
	sg.noteUnread(st)
	sg.permissionAnswered()
}

// noteUnread logs the moments worth a line among the events not read yet; ending nothing.
func (sg *signalWatch) noteUnread(st *ralph.State) {
	for _, e := range sg.readEvents() {
		if !sg.promptThread(e) {
			continue
		}
		f := ralph.SignalFacts{Event: e, Session: sg.signalSession(st), TokenSum: st.AgentTokenSum, Working: true}
		if act, _ := ralph.OnSignal(f); act == ralph.SignalNote {
			sg.drv.logEvent("SIGNAL", fmt.Sprintf("iteration %d %s", st.CurrentIteration, signalText(e)))
		}
	}
}

// eventReader follows the iteration's events file.
type eventReader struct {
	offset int64  // how far the file was read (whole lines only)
	thread string // the Codex thread of the prompt's turn, once known
	// turnEnded: the agent's turn ended while it was still busy (its Stop hooks running); the
	// iteration ends once its screen shows it idle, as ending says.
	turnEnded bool
	ending    ralph.Ending
	pending   ralph.AgentEvent // the event that ended it
	// skipping: the read stopped inside a line longer than any event, passed over to its end.
	skipping bool
	// permissionAt: when "needs permission" was named; zero when it is not.
	permissionAt time.Time
	// untiedSaid: an event not tied to the agent was said (once an iteration: anyone can
	// write the events file, as often as they like).
	untiedSaid bool
}

// agentSaid reports whether the iteration's agent has recorded the event (read without
// moving on: the watch reads the events itself).
func (sg *signalWatch) agentSaid(st *ralph.State, event string) bool {
	session := sg.signalSession(st)
	for _, e := range firstEvents(sg.drv.dir().AgentEvents()) {
		if e.Event == event && ralph.Untied(e, session, st.AgentTokenSum) == "" {
			return true
		}
	}
	return false
}

// watchSignals acts on the events the agent recorded since the last look, and reports
// whether one of them ended the iteration.
func (sg *signalWatch) watchSignals(st *ralph.State, a agent, w *screenWatch) bool {
	sg.watchHold(w)
	if !sg.events.permissionAt.IsZero() && w.facts.LastProgress.After(sg.events.permissionAt.Add(permissionSettle)) {
		sg.permissionAnswered() // the agent moved on: the permission was given (or refused)
	}
	for _, e := range sg.readEvents() {
		if !sg.promptThread(e) {
			continue
		}
		f := ralph.SignalFacts{Event: e, Session: sg.signalSession(st), TokenSum: st.AgentTokenSum, Recorded: st.AgentSession,
			Working: true, MaxContext: st.MaxContext, Permission: !sg.events.permissionAt.IsZero()}
		if e.Event == ralph.EventStop || e.Event == ralph.EventStopFailure {
			f.Marker, f.Busy = sg.turnScreen(st, a, e)
			f.Busy = f.Busy && !(e.Event == ralph.EventStop && ralph.EndsTurnLast(e.Agent))
			f.ErrorShown = ralph.EndsTurnOnError(e.Agent) && sg.errorShown(a, e.Message == "")
		}
		act, ending := ralph.OnSignal(f)
		switch act {
		case ralph.SignalUntied:
			sg.untied(st, f)
		case ralph.SignalTurnPending:
			sg.events.turnEnded, sg.events.ending, sg.events.pending = true, ending, e
		case ralph.SignalNote:
			sg.drv.logEvent("SIGNAL", fmt.Sprintf("iteration %d %s", st.CurrentIteration, signalText(e)))
		case ralph.SignalPermission:
			sg.needsPermission(st, a, e)
		case ralph.SignalSession:
			st.AgentSession = e.Session
			sg.drv.update(func(s *ralph.State) error { s.AgentSession = e.Session; return nil })
		case ralph.SignalEnd:
			sg.drv.logEvent("SIGNAL", fmt.Sprintf("iteration %d %s", st.CurrentIteration, signalText(e)))
			sg.endBySignal(st, a, e, ending)
			return true
		}
	}
	return false
}

// promptThread reports whether e is of the prompt's thread (see PromptThread), and learns it.
func (sg *signalWatch) promptThread(e ralph.AgentEvent) bool {
	prompt := ""
	if sg.events.thread == "" && e.Agent == "codex" {
		data, _ := os.ReadFile(sg.drv.dir().PromptCopy())
		prompt = string(data)
	}
	thread, ok := ralph.PromptThread(e, prompt, sg.events.thread)
	sg.events.thread = thread
	return ok
}

// signalSession is the session swarm gave the iteration's agent, "" when it gave none (not
// Claude Code, or a command that picks its session itself).
func (sg *signalWatch) signalSession(st *ralph.State) string {
	w, err := sg.drv.worker()
	if err != nil || len(ralph.AgentCommand(w.Cmd, st.AgentSession)) == len(w.Cmd) {
		return ""
	}
	return st.AgentSession
}

// permissionAnswered forgets a permission the agent asked for: it went on, or its iteration
// ended.
func (sg *signalWatch) permissionAnswered() {
	sg.events.permissionAt = time.Time{}
	if cur, err := sg.drv.dir().Load(); err == nil && cur.NeedsPermission != "" {
		sg.drv.update(func(s *ralph.State) error { s.PermissionAnswered(); return nil })
	}
}

// watchHold notes whether the agent waits in swarm's permission hook for an answer: while
// it does, its still screen is neither quiet nor hung, and the time a permission is taken to
// be answered (its screen moving on) counts from the hold's end, when Claude Code draws its
// own dialog in its place.
func (sg *signalWatch) watchHold(w *screenWatch) {
	if !sg.events.permissionAt.IsZero() {
		if cur, err := sg.drv.dir().Load(); err == nil && cur.NeedsPermission == "" {
			sg.events.permissionAt = time.Time{} // answered through swarm (swarm answer)
		}
	}
	now := sg.drv.clock().Now()
	_, held := ralph.HeldIn(sg.drv.dir().AgentBox(), now)
	was := w.facts.Held
	if w.facts.Held = held; !held && !was {
		return
	}
	// Held, or its hold just over: the agent was active until now.
	w.facts.LastChange, w.facts.LastProgress = now, now
	if !held {
		return
	}
	if !sg.events.permissionAt.IsZero() {
		sg.events.permissionAt = now
	}
}

// permissionSettle is how long after a permission prompt the agent's screen may keep moving
// (drawing the prompt) before a change means it went on.
const permissionSettle = 2 * time.Second

// untied says, once an iteration, that an event not tied to the iteration's agent was
// ignored, and why.
func (sg *signalWatch) untied(st *ralph.State, f ralph.SignalFacts) {
	if sg.events.untiedSaid {
		return
	}
	sg.events.untiedSaid = true
	text := fmt.Sprintf("ignored %s: not from this iteration's agent (%s); others this iteration are ignored unsaid",
		signalText(f.Event), ralph.Untied(f.Event, f.Session, f.TokenSum))
	sg.drv.say("%s", text)
	sg.drv.logEvent("SIGNAL", fmt.Sprintf("iteration %d %s", st.CurrentIteration, text))
}

// signalText is how the log names an agent's event: its name and kind, as anyone may have
// written them, made printable and short.
func signalText(e ralph.AgentEvent) string {
	s := e.Event
	for _, x := range []string{e.Error, e.Kind} {
		if x != "" {
			s += " " + x
		}
	}
	return screen.Printable(s, 80)
}

// turnScreen reports, at the end of a turn, whether the done marker is in the agent's last
// answer or on screen, and whether the screen shows the agent still busy.
func (sg *signalWatch) turnScreen(st *ralph.State, a agent, e ralph.AgentEvent) (marker, busy bool) {
	lines, err := sg.drv.captureHistory(a)
	if err != nil {
		return false, false
	}
	busy = sg.drv.screenKind(lines) == screen.Busy
	return sg.drv.doneShown(st, e.Message, lines), busy
}

// errorShown reports whether the agent's screen shows an API error as its last word; after a
// turn with no answer it is given ralph.ErrorDrawWait to show one.
func (sg *signalWatch) errorShown(a agent, noAnswer bool) bool {
	deadline := sg.drv.clock().Now().Add(ralph.ErrorDrawWait)
	for {
		if lines, err := sg.drv.capture(a, 0); err == nil {
			if _, ok := screen.APIError(lines); ok {
				return true
			}
		}
		if !noAnswer || !sg.drv.clock().Now().Before(deadline) || !sg.drv.alive(a.pid) {
			return false
		}
		sg.drv.clock().Sleep(errorDrawPoll)
	}
}

// errorDrawPoll is how often a screen is looked at while an API error may be being drawn.
const errorDrawPoll = 50 * time.Millisecond

// turnOver ends the iteration whose agent's turn ended while it was busy, once it is idle.
func (sg *signalWatch) turnOver(st *ralph.State, a agent) bool {
	if !sg.events.turnEnded {
		return false
	}
	lines, err := sg.drv.capture(a, 0)
	if err != nil || sg.drv.screenKind(lines) == screen.Busy {
		return false
	}
	e := sg.events.pending
	sg.drv.logEvent("SIGNAL", fmt.Sprintf("iteration %d %s", st.CurrentIteration, signalText(e)))
	if e.Event == ralph.EventStopFailure {
		sg.endBySignal(st, a, e, sg.events.ending)
	} else {
		sg.drv.endIteration(st, a, sg.events.ending)
	}
	return true
}

// endBySignal ends the iteration as the agent's event says; an error or limit is named by
// what the screen shows when it shows it (with its reset time), else by the event.
func (sg *signalWatch) endBySignal(st *ralph.State, a agent, e ralph.AgentEvent, ending ralph.Ending) {
	lines, _ := sg.drv.capture(a, 0)
	switch ending {
	case ralph.EndAPIError:
		text, ok := screen.APIError(lines)
		if !ok {
			// Drawn a moment after the hook ran, or in words the screen rules do not know.
			if text = ralph.FirstOf(e.Message, e.Error); !strings.HasPrefix(text, "API Error") {
				text = "API Error: " + text
			}
		}
		sg.apiErrors.ends(st, a, text)
	case ralph.EndUsageLimit:
		text, ok := screen.UsageLimit(lines)
		if !ok {
			text = ralph.FirstOf(e.Message, "rate limit ("+e.Error+")")
		}
		sg.limits.limitEnds(st, a, words.OneLine(text))
	default:
		sg.drv.endIteration(st, a, ending)
	}
}

// needsPermission names the state in which the agent waits for a permission, and notifies.
func (sg *signalWatch) needsPermission(st *ralph.State, a agent, e ralph.AgentEvent) {
	what := words.OneLine(ralph.FirstOf(e.Message, "a tool"))
	if e.SkipNotSkipped() {
		what = ralph.DangerousWhat(e)
	}
	sg.events.permissionAt = sg.drv.clock().Now()
	now := sg.drv.clock().Now()
	sg.drv.update(func(s *ralph.State) error { s.WaitsForPermission(what, now); return nil })
	sg.drv.say("agent needs permission: %s; answer it with 'swarm answer %s yes' (or no)", what, sg.drv.name())
	sg.drv.logEvent("PERMISSION", fmt.Sprintf("iteration %d %s", st.CurrentIteration, what))
	var last []string
	if lines, err := sg.drv.capture(a, 0); err == nil {
		last = screenTail(lines, lastLinesSent)
	}
	sg.notify.send(st, ralph.Notice{Event: ralph.NotifyPermission, Reason: "agent needs permission: " + what}, last, nil)
	if st.RefusesDangerous(e) {
		sg.refuseDangerous(st, a, e)
	}
}

// An agent that gives signals runs hooks at its turn's end, the user's own among them; ended
// while they run, it would take them with it. Its done marker therefore waits, after the
// turn, until the agent no longer shows itself busy, at most hooksSettle (a hook's own time
// limit in Claude Code, by default).
const (
	hooksSettle     = 60 * time.Second
	hooksSettlePoll = 200 * time.Millisecond
)

// letHooksFinish waits while an agent that gives signals shows itself busy (see hooksSettle).
func (sg *signalWatch) letHooksFinish(a agent) {
	if _, err := os.Stat(sg.drv.dir().AgentEvents()); err != nil {
		return // an agent without signals: no hooks of swarm's, none known of the user's
	}
	deadline := sg.drv.clock().Now().Add(hooksSettle)
	for sg.drv.clock().Now().Before(deadline) && sg.drv.alive(a.pid) && !sg.drv.abortRequested() {
		lines, err := sg.drv.capture(a, 0)
		if err != nil || sg.drv.screenKind(lines) != screen.Busy {
			return
		}
		sg.drv.clock().Sleep(hooksSettlePoll)
	}
}

// Claude Code draws its input prompt before its SessionStart hooks have run, and an Enter
// pressed meanwhile can be lost. Given swarm's hooks, it is ready once it has said its session
// started; one whose hooks never report (turned off by the user's settings) is taken as ready
// sessionStartWait after its input prompt showed.
const sessionStartWait = 10 * time.Second

// sessionStarted reports whether an agent whose input prompt shows is ready for the prompt as
// far as its signals go; readyAt notes when its input prompt was first seen.
func (sg *signalWatch) sessionStarted(st *ralph.State, readyAt *time.Time) bool {
	now := sg.drv.clock().Now()
	if readyAt.IsZero() {
		*readyAt = now
	}
	if !sg.hooksGiven(st) || sg.agentSaid(st, ralph.EventSessionStart) {
		return true
	}
	return now.Sub(*readyAt) >= sessionStartWait
}

// namesErrors reports whether the iteration's agent names its API errors itself: it was
// given swarm's hooks (Claude Code), and they run (it said its session started).
func (sg *signalWatch) namesErrors(st *ralph.State) bool {
	return sg.hooksGiven(st) && sg.agentSaid(st, ralph.EventSessionStart)
}

// hooksGiven reports whether the iteration's agent was given swarm's hooks (Claude Code).
func (sg *signalWatch) hooksGiven(st *ralph.State) bool {
	w, err := sg.drv.worker()
	if err != nil {
		return false
	}
	return ralph.AgentSignals(ralph.AgentCommand(w.Cmd, st.AgentSession), sg.drv.dir(), ralph.Recorder(sg.wrapper), "",
		st.NoAgentSignals).Settings != ""
}
