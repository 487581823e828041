package driver

import (
	"context"
	"io"

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
	// What it says and records (see phase_record.go).
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
	pressKeys(a agent, keys ...string) error
	captureHistory(a agent) ([]string, error)
	screenKind(lines []string) screen.Kind
	doneShown(st *ralph.State, message string, lines []string) bool
	lastOutput(a agent, iteration, n int) []string
	showMessage(text string) error
}

// facade gives the features the driver's services: the methods below are its own, the others
// are Loop's.
type facade struct{ *Loop }

var _ services = facade{}

func (f facade) dir() ralph.Dir      { return f.cfg.Dir }
func (f facade) name() string        { return f.cfg.Name }
func (f facade) workers() *state.Dir { return f.cfg.Workers }
func (f facade) clock() Clock        { return f.cfg.Clock }
func (f facade) detail() io.Writer   { return f.cfg.Detail }
func (f facade) alive(pid int) bool  { return f.cfg.Procs.Alive(pid) }
func (f facade) showMessage(text string) error {
	_, err := f.cfg.Tmux.Message(text)
	return err
}

func (f facade) say(format string, args ...any)            { f.rec.say(format, args...) }
func (f facade) supervisionSay(format string, args ...any) { f.rec.supervisionSay(format, args...) }
func (f facade) supervisionPrint(text string)              { f.rec.supervisionPrint(text) }
func (f facade) logEvent(kind, text string)                { f.rec.logEvent(kind, text) }
func (f facade) recorded(err error)                        { f.rec.recorded(err) }
func (f facade) update(fn func(*ralph.State) error)        { f.rec.update(fn) }
func (f facade) updateSupervision(fn func(*ralph.SupervisionState)) {
	f.rec.updateSupervision(fn)
}

func (f facade) worker() (*state.Worker, error)                 { return f.cfg.worker() }
func (f facade) capture(a agent, history int) ([]string, error) { return f.view.capture(a, history) }
func (f facade) pressKeys(a agent, keys ...string) error {
	return f.cfg.Tmux.SendKeys(a.paneID, keys...)
}

// agentGetenv looks up the agent's environment: the worker's saved one, then the monitor's.
func (f facade) agentGetenv(name string) func(string) string {
	return ralph.EnvFileGetenv(f.cfg.Workers.EnvPath(name))
}

// endIteration evaluates an iteration that ended (see end).
func (f facade) endIteration(st *ralph.State, a agent, kind ralph.Ending) { f.ending.end(st, a, kind) }

func (f facade) workDir(st *ralph.State) string   { return f.ending.workDir(st) }
func (f facade) agentName(st *ralph.State) string { return f.ending.agentName(st) }
func (f facade) removeDoneFile(why string)        { f.ending.removeDoneFile(why) }

// captureHistory captures the agent's screen with the scrollback the done pattern is looked for in.
func (f facade) captureHistory(a agent) ([]string, error) {
	return f.view.capture(a, f.cfg.HistoryLines)
}
