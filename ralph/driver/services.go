package driver

import (
	"context"
	"io"
	"strings"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
)

// services are what the driver does for its features: they say and record through it, look
// at the agent through it and end the iteration through it, rather than reaching into Loop.
// What a feature may do to the loop is thus this list, and a feature's tests can stand in a
// fake for the driver.
type services interface {
	// The loop: its directory, the worker it runs in, the time.
	dir() ralph.Dir
	name() string
	workers() *state.Dir
	clock() Clock
	// What it says and records (see loop_record.go).
	say(format string, args ...any)
	supervisionSay(format string, args ...any)
	supervisionPrint(text string)
	detail() io.Writer
	logEvent(kind, text string)
	recorded(err error)
	update(fn func(*ralph.State) error)
	updateSupervision(fn func(*ralph.SupervisionState))
	// Its decisions and endings.
	transition(st *ralph.State, a agent, dec ralph.Decision) *ralph.State
	endIteration(st *ralph.State, a agent, kind ralph.Ending)
	removeDoneFile(why string)
	freshLoop()
	abortRequested() bool
	ctx() context.Context
	// The worker and its agent.
	worker() (*state.Worker, error)
	workDir(st *ralph.State) string
	agentName(st *ralph.State) string
	agentGetenv(name string) func(string) string
	alive(pid int) bool
	capture(a agent, history int) ([]string, error)
	captureHistory(a agent) ([]string, error)
	screenKind(lines []string) screen.Kind
	doneShown(st *ralph.State, message string, lines []string) bool
	lastOutput(a agent, iteration, n int) []string
	showMessage(text string) error
}

// The services' own methods; the others are Loop's as they are.

func (l *Loop) dir() ralph.Dir      { return l.cfg.Dir }
func (l *Loop) name() string        { return l.cfg.Name }
func (l *Loop) workers() *state.Dir { return l.cfg.Workers }
func (l *Loop) clock() Clock        { return l.cfg.Clock }
func (l *Loop) detail() io.Writer   { return l.cfg.Detail }
func (l *Loop) alive(pid int) bool  { return l.cfg.Procs.Alive(pid) }
func (l *Loop) showMessage(text string) error {
	_, err := l.cfg.Tmux.Message(text)
	return err
}

// endIteration evaluates an iteration that ended (see end).
func (l *Loop) endIteration(st *ralph.State, a agent, kind ralph.Ending) { l.end(st, a, kind) }

// captureHistory captures the agent's screen with the scrollback the done pattern is looked for in.
func (l *Loop) captureHistory(a agent) ([]string, error) { return l.capture(a, l.cfg.HistoryLines) }

// screenKind is what the screen shows the agent doing (the loop's ready pattern counts).
func (l *Loop) screenKind(lines []string) screen.Kind {
	return screen.Classify(strings.Join(lines, "\n"), l.readyRE).Kind
}

// doneShown reports whether the done pattern shows in message (the agent's last answer) or
// on screen beyond the echoes the iteration began with; never when the loop has none.
func (l *Loop) doneShown(st *ralph.State, message string, lines []string) bool {
	if l.doneRE == nil {
		return false
	}
	return message != "" && l.doneRE.MatchString(message) || l.matcher != nil && l.matcher.Count(lines) > st.DoneBaseline
}

var _ services = (*Loop)(nil)
