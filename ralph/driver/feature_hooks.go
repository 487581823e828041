package driver

import (
	"context"
	"io"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
)

// hookServices are what the user's hooks ask of the driver: the one slice of its services
// (services.go) it uses.
type hookServices interface {
	dir() ralph.Dir
	name() string
	say(format string, args ...any)
	detail() io.Writer
	logEvent(kind, text string)
	ctx() context.Context
	workDir(st *ralph.State) string
	agentName(st *ralph.State) string
}

// userHooks is the feature that runs the user's hooks of an iteration's and a loop's end:
// post-iteration once the iteration is recorded (they see the loop's status as the iteration
// left it), and the loop's final hook (on-complete, on-stagnation, on-failure) once its summary
// is written. The pre-iteration hooks run as the agent starts (see Starter).
type userHooks struct{ drv hookServices }

func (h *userHooks) featureName() string { return "hooks" }

// iterationRecorded runs the post-iteration hooks.
func (h *userHooks) iterationRecorded(rec ralph.IterationRecord) {
	if cur, err := h.drv.dir().Load(); err == nil {
		h.run(cur, config.HookPostIteration, rec.Iteration, rec.ExitCode)
	}
}

// loopEnded runs the hook of the loop's outcome; it reports whether the loop's context cut
// it short.
func (h *userHooks) loopEnded(st *ralph.State) (unfinished bool) {
	typ := ralph.OutcomeOf(st).FinalHook()
	return typ != "" && h.run(st, typ, st.CurrentIteration, st.LastExitCode)
}

// run runs the loop's hooks of one type; one that fails or times out is logged. cutShort
// says the loop's context ended while they ran.
func (h *userHooks) run(st *ralph.State, typ string, n int, code *int) (cutShort bool) {
	if !ralph.HasHook(st.Hooks, typ) {
		return false
	}
	hc := HookContext{Agent: h.drv.agentName(st), Iteration: n, MaxIterations: st.MaxIterations, ExitCode: code,
		Status: st.Status, WorkDir: h.drv.workDir(st), Worker: h.drv.name()}
	return reportHooks(h.drv.ctx(), st, typ, hc, h.drv.detail(), h.drv.say, h.drv.logEvent)
}
