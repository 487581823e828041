package ralph

import (
	"fmt"
	"strings"
	"time"
)

// Hooks (--hook TYPE:CMD): the user's own commands at fixed points of a loop's life. A hook
// that fails or hangs is logged and ended; it never stops the loop.

// Hook types.
const (
	HookPreIteration  = "pre-iteration"  // before each iteration's agent starts
	HookPostIteration = "post-iteration" // after each iteration ended and was evaluated
	HookOnComplete    = "on-complete"    // the loop ended complete or done
	HookOnStagnation  = "on-stagnation"  // the stagnation breaker stopped it
	HookOnFailure     = "on-failure"     // it failed, or used its iterations without passing its checks
)

// HookTypes are the valid types, in the order of a loop's life.
var HookTypes = []string{HookPreIteration, HookPostIteration, HookOnComplete, HookOnStagnation, HookOnFailure}

// DefaultHookTimeout bounds one hook's run.
const DefaultHookTimeout = 60 * time.Second

// Hook is one --hook.
type Hook struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

// ParseHook reads TYPE:CMD.
func ParseHook(spec string) (Hook, error) {
	typ, cmd, ok := strings.Cut(spec, ":")
	valid := false
	for _, t := range HookTypes {
		valid = valid || t == typ
	}
	if !ok || !valid {
		return Hook{}, fmt.Errorf("invalid --hook '%s': unknown hook type '%s' (valid types: %s)", spec, typ, strings.Join(HookTypes, ", "))
	}
	if strings.TrimSpace(cmd) == "" {
		return Hook{}, fmt.Errorf("invalid --hook '%s': no command after '%s:'", spec, typ)
	}
	return Hook{Type: typ, Command: cmd}, nil
}

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
	return [...]string{"", HookOnComplete, HookOnFailure, HookOnStagnation}[o]
}
