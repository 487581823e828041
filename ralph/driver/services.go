package driver

import (
	"io"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// services are what the driver does for its features: they say and record through it, look
// at the agent through it and end the iteration through it, rather than reaching into Loop.
// Each feature is handed only the slice of them it uses, an interface of its own beside its
// type (agentModeServices, signalServices, ...): what a feature may do to the loop is that
// list, read where the feature is. services is their union, which the driver's facade gives,
// and a feature's tests can stand in a fake for the driver.
type services interface {
	agentModeServices
	apiErrorServices
	chainServices
	checkerServices
	costServices
	deadlineServices
	gateServices
	hookServices
	limitServices
	notifyServices
	paceServices
	signalServices
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
