package ralph

import (
	"time"

	"github.com/swarm-dev/swarm/ralph/config"
)

// Hooks (--hook TYPE:CMD): the user's own commands at fixed points of a loop's life. A hook
// that fails or hangs is logged and ended; it never stops the loop.

// DefaultHookTimeout bounds one hook's run.
const DefaultHookTimeout = 60 * time.Second

// Outcome is how a finished loop counts: what its end-of-loop hook (and, in swarm, a
// foreground run's exit code) follow from.
type Outcome int

// Outcomes of a finished loop.
const (
	OutcomeOther     Outcome = iota // stopped by the user, waiting, a lost worker: no verdict
	OutcomeComplete                 // complete, done, or (without checkers) every iteration used
	OutcomeFailure                  // failed, or every iteration used without passing the checks
	OutcomeStagnated                // the stagnation breaker stopped it
)

// OutcomeOf classifies a loop that has ended.
func OutcomeOf(st *State) Outcome {
	switch {
	case st.Status == StatusFailed:
		return OutcomeFailure
	case st.Status != StatusStopped:
		return OutcomeOther
	}
	switch st.ExitReason {
	case "complete", "done_pattern", "done_file":
		return OutcomeComplete
	case "stagnated":
		return OutcomeStagnated
	case "max_iterations":
		if len(st.Checks) > 0 {
			return OutcomeFailure
		}
		return OutcomeComplete
	}
	return OutcomeOther
}

// FinalHook is the hook type that fires when a loop ends this way; "" when none does.
func (o Outcome) FinalHook() string {
	return [...]string{"", config.HookOnComplete, config.HookOnFailure, config.HookOnStagnation}[o]
}

func HasHook(hooks []config.Hook, typ string) bool {
	for _, h := range hooks {
		if h.Type == typ {
			return true
		}
	}
	return false
}
