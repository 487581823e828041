package driver

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
)

// Running hooks: what they are told and how each run went.

// HookContext is what a hook is told, in its environment.
type HookContext struct {
	Agent         string
	Iteration     int
	MaxIterations int
	ExitCode      *int
	Status        ralph.Status
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
	Hook     config.Hook
	Code     int
	TimedOut bool
	CutShort bool // ended because the loop is being stopped
	Err      error
}

// Failed reports whether the hook did not succeed.
func (r HookRun) Failed() bool { return r.Err != nil || r.TimedOut || r.CutShort || r.Code != 0 }

// LogText is its iterations.log line: `post-iteration ./log.sh exit=1`.
func (r HookRun) LogText(timeout time.Duration) string {
	switch {
	case r.Err != nil:
		return fmt.Sprintf("%s %s cannot run: %v", r.Hook.Type, r.Hook.Command, r.Err)
	case r.TimedOut:
		return fmt.Sprintf("%s %s timed out after %s, ended", r.Hook.Type, r.Hook.Command, timeout)
	case r.CutShort:
		return fmt.Sprintf("%s %s ended: the loop is stopping", r.Hook.Type, r.Hook.Command)
	}
	return fmt.Sprintf("%s %s exit=%d", r.Hook.Type, r.Hook.Command, r.Code)
}

// RunHooks runs the hooks of one type, in the order given, each with sh -c in the worker's
// directory; their output goes to out. Once ctx ends (the loop is being stopped) the hook that
// runs is ended with its process group and the rest do not start.
func RunHooks(ctx context.Context, hooks []config.Hook, typ string, hc HookContext, timeout time.Duration, out io.Writer) []HookRun {
	var runs []HookRun
	for _, h := range hooks {
		if h.Type != typ {
			continue
		}
		res := runShell(ctx, shellRun{Dir: hc.WorkDir, Argv: []string{"sh", "-c", h.Command}, Env: hc.env(),
			Timeout: timeout, Out: out})
		runs = append(runs, HookRun{Hook: h, Code: res.Code, TimedOut: res.TimedOut, CutShort: res.CutShort, Err: res.Err})
		if res.CutShort {
			break
		}
	}
	return runs
}
