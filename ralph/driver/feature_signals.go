package driver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/screen"
)

// The driver's side of the agents' own signals (ralph/signals.go): reading the events file the
// recorder appends to, and carrying out what OnSignal makes of each event. The file is in the
// loop's directory, whose changes wake the loop already: an event is read at once, with no
// polling of its own.

// signalWatch is the feature that follows the agents' own signals: it ends an iteration as
// they say, names a permission the agent waits for, and tells the delivery when the agent
// is ready for its prompt and took it.
type signalWatch struct {
	drv    services
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

// iterationEnding forgets a permission the agent asked for: its iteration ended.
func (sg *signalWatch) iterationEnding(st *ralph.State) { sg.permissionAnswered() }

// eventReader follows the iteration's events file.
type eventReader struct {
	offset int64  // how far the file was read (whole lines only)
	thread string // the Codex thread of the prompt's turn, once known
	// turnEnded: the agent's turn ended while it was still busy (its Stop hooks running); the
	// iteration ends once its screen shows it idle, as ending says.
	turnEnded bool
	ending    ralph.Ending
	// permissionAt: when "needs permission" was named; zero when it is not.
	permissionAt time.Time
}

// readEvents returns the events recorded since the last read.
func (sg *signalWatch) readEvents() []ralph.AgentEvent {
	f, err := os.Open(sg.drv.dir().AgentEvents())
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() < sg.events.offset {
		sg.events.offset = 0 // a new file: a new agent's
	}
	if _, err := f.Seek(sg.events.offset, io.SeekStart); err != nil {
		return nil
	}
	data, _ := io.ReadAll(f)
	whole := bytes.LastIndexByte(data, '\n') + 1 // a line still being written waits
	sg.events.offset += int64(whole)
	return parseEvents(data[:whole])
}

// parseEvents reads JSON lines; damaged ones are skipped.
func parseEvents(data []byte) []ralph.AgentEvent {
	var out []ralph.AgentEvent
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		var e ralph.AgentEvent
		if len(bytes.TrimSpace(line)) > 0 && json.Unmarshal(line, &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

// agentSaid reports whether the iteration's agent has recorded the event (read without
// moving on: the watch reads the events itself).
func (sg *signalWatch) agentSaid(st *ralph.State, event string) bool {
	data, err := os.ReadFile(sg.drv.dir().AgentEvents())
	if err != nil {
		return false
	}
	session := sg.signalSession(st)
	for _, e := range parseEvents(data) {
		if e.Event == event && (session == "" || e.Session == "" || e.Session == session) {
			return true
		}
	}
	return false
}

// watchSignals acts on the events the agent recorded since the last look, and reports
// whether one of them ended the iteration.
func (sg *signalWatch) watchSignals(st *ralph.State, a agent, w *screenWatch) bool {
	if !sg.events.permissionAt.IsZero() && w.facts.LastProgress.After(sg.events.permissionAt.Add(permissionSettle)) {
		sg.permissionAnswered() // the agent moved on: the permission was given (or refused)
	}
	for _, e := range sg.readEvents() {
		if !sg.promptThread(e) {
			continue
		}
		f := ralph.SignalFacts{Event: e, Session: sg.signalSession(st), Recorded: st.AgentSession, Working: true,
			MaxContext: st.MaxContext, Permission: !sg.events.permissionAt.IsZero()}
		if e.Event == ralph.EventStop {
			f.Marker, f.Busy = sg.turnScreen(st, a, e)
		}
		act, ending := ralph.OnSignal(f)
		switch act {
		case ralph.SignalTurnPending:
			sg.events.turnEnded, sg.events.ending = true, ending
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

// permissionSettle is how long after a permission prompt the agent's screen may keep moving
// (drawing the prompt) before a change means it went on.
const permissionSettle = 2 * time.Second

// signalText is how the log names an agent's event.
func signalText(e ralph.AgentEvent) string {
	s := e.Event
	for _, x := range []string{e.Error, e.Kind} {
		if x != "" {
			s += " " + x
		}
	}
	return s
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

// turnOver ends the iteration whose agent's turn ended while it was busy, once it is idle.
func (sg *signalWatch) turnOver(st *ralph.State, a agent) bool {
	if !sg.events.turnEnded {
		return false
	}
	lines, err := sg.drv.capture(a, 0)
	if err != nil || sg.drv.screenKind(lines) == screen.Busy {
		return false
	}
	sg.drv.logEvent("SIGNAL", fmt.Sprintf("iteration %d Stop", st.CurrentIteration))
	sg.drv.endIteration(st, a, sg.events.ending)
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
	sg.events.permissionAt = sg.drv.clock().Now()
	now := sg.drv.clock().Now()
	sg.drv.update(func(s *ralph.State) error { s.WaitsForPermission(what, now); return nil })
	sg.drv.say("agent needs permission: %s; answer it with 'swarm attach %s'", what, sg.drv.name())
	sg.drv.logEvent("PERMISSION", fmt.Sprintf("iteration %d %s", st.CurrentIteration, what))
	var last []string
	if lines, err := sg.drv.capture(a, 0); err == nil {
		last = screenTail(lines, lastLinesSent)
	}
	sg.notify.send(st, ralph.Notice{Event: ralph.NotifyPermission, Reason: "agent needs permission: " + what}, last, nil)
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

// hooksGiven reports whether the iteration's agent was given swarm's hooks (Claude Code).
func (sg *signalWatch) hooksGiven(st *ralph.State) bool {
	w, err := sg.drv.worker()
	if err != nil {
		return false
	}
	return ralph.AgentSignals(ralph.AgentCommand(w.Cmd, st.AgentSession), sg.drv.dir(), ralph.Recorder(sg.wrapper), st.NoAgentSignals).Settings != ""
}
