package ralph

import (
	"fmt"
	"io"
	"os"
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

// Outcome is how a finished loop counts: what its end-of-loop hook and a foreground run's
// exit code follow from.
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

// ExitCode is a foreground run's exit code: 0 complete (and anything without a verdict), 1
// failure, 2 stagnated.
func (o Outcome) ExitCode() int {
	return [...]int{0, 0, 1, 2}[o]
}

// HookContext is what a hook is told, in its environment.
type HookContext struct {
	Agent         string
	Iteration     int
	MaxIterations int
	ExitCode      *int
	Status        Status
	WorkDir       string
	Worker        string
}

func (c HookContext) env() []string {
	code := ""
	if c.ExitCode != nil {
		code = fmt.Sprint(*c.ExitCode)
	}
	return append(os.Environ(), "RALPH_AGENT="+c.Agent, fmt.Sprintf("RALPH_ITERATION=%d", c.Iteration),
		fmt.Sprintf("RALPH_MAX_ITERATIONS=%d", c.MaxIterations), "RALPH_EXIT_CODE="+code,
		"RALPH_STATUS="+c.Status.String(), "RALPH_WORK_DIR="+c.WorkDir, "SWARM_WORKER="+c.Worker)
}

// HookRun is how one hook went.
type HookRun struct {
	Hook     Hook
	Code     int
	TimedOut bool
	Err      error
}

// Failed reports whether the hook did not succeed.
func (r HookRun) Failed() bool { return r.Err != nil || r.TimedOut || r.Code != 0 }

// LogText is its iterations.log line: `post-iteration ./log.sh exit=1`.
func (r HookRun) LogText(timeout time.Duration) string {
	switch {
	case r.Err != nil:
		return fmt.Sprintf("%s %s cannot run: %v", r.Hook.Type, r.Hook.Command, r.Err)
	case r.TimedOut:
		return fmt.Sprintf("%s %s timed out after %s, ended", r.Hook.Type, r.Hook.Command, timeout)
	}
	return fmt.Sprintf("%s %s exit=%d", r.Hook.Type, r.Hook.Command, r.Code)
}

// RunHooks runs the hooks of one type, in the order given, each with sh -c in the worker's
// directory; their output goes to out.
func RunHooks(hooks []Hook, typ string, ctx HookContext, timeout time.Duration, out io.Writer) []HookRun {
	var runs []HookRun
	for _, h := range hooks {
		if h.Type != typ {
			continue
		}
		res := runShell(shellRun{Dir: ctx.WorkDir, Argv: []string{"sh", "-c", h.Command}, Env: ctx.env(),
			Timeout: timeout, Out: out})
		runs = append(runs, HookRun{Hook: h, Code: res.Code, TimedOut: res.TimedOut, Err: res.Err})
	}
	return runs
}
