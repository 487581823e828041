package ralph

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/screen"
)

// CheckContext is what a checker gets to look at: the iteration that claimed to be done.
type CheckContext struct {
	WorkDir    string
	Iteration  int
	ExitCode   *int   // nil: the agent did not exit by itself
	OutputFile string // the iteration's screen output
	Prompt     string // the prompt it was given, whose echo does not count as output
	Timeout    time.Duration
	Out        io.Writer // checker output, for the monitor log; nil: kept only
}

// RunChecks runs every checker, in order, and returns their answers.
func RunChecks(checks []config.Check, ctx CheckContext) []CheckResult {
	out := make([]CheckResult, 0, len(checks))
	for _, c := range checks {
		r := runCheck(c, ctx)
		r.Name = c.Spec
		out = append(out, r)
	}
	return out
}

func runCheck(c config.Check, ctx CheckContext) CheckResult {
	switch c.Kind {
	case config.CheckCommand:
		return commandCheck(c, ctx)
	case config.CheckFile:
		return fileCheck(c, ctx)
	case config.CheckMarker:
		return markerCheck(c, ctx)
	case config.CheckExitCode:
		return exitCodeCheck(ctx)
	}
	return scriptCheck(c, ctx)
}

func commandCheck(c config.Check, ctx CheckContext) CheckResult {
	res := runShell(shellRun{Dir: ctx.WorkDir, Argv: []string{"sh", "-c", c.Arg}, Env: os.Environ(),
		Timeout: ctx.Timeout, Out: ctx.Out})
	return shellVerdict(res, ctx.Timeout, false)
}

// shellVerdict turns a checker's run into its answer: the exit code, and a line of its output
// (the first for a script, which speaks for itself; the last for a command, where errors end up).
func shellVerdict(res shellResult, timeout time.Duration, first bool) CheckResult {
	switch {
	case res.Err != nil:
		return CheckResult{Message: "cannot run: " + res.Err.Error()}
	case res.TimedOut:
		return CheckResult{Message: fmt.Sprintf("timed out after %s", timeout)}
	}
	line := firstLine(res.Output)
	if !first && strings.TrimSpace(res.Output) != "" {
		line = lastLine(res.Output)
	}
	msg := fmt.Sprintf("exit %d", res.Code)
	if first && line != "" {
		msg = line
	} else if line != "" {
		msg += ": " + line
	}
	return CheckResult{Passed: res.Code == 0, Message: msg}
}

func fileCheck(c config.Check, ctx CheckContext) CheckResult {
	path := c.Arg
	if !filepath.IsAbs(path) {
		path = filepath.Join(ctx.WorkDir, path)
	}
	if _, err := os.Stat(path); err != nil {
		return CheckResult{Message: c.Arg + " does not exist"}
	}
	return CheckResult{Passed: true, Message: c.Arg + " exists"}
}

func markerCheck(c config.Check, ctx CheckContext) CheckResult {
	re, err := regexp.Compile(c.Arg)
	if err != nil {
		return CheckResult{Message: err.Error()}
	}
	data, err := os.ReadFile(ctx.OutputFile)
	if err != nil {
		return CheckResult{Message: "no output of this iteration to search"}
	}
	if screen.NewDoneMatcher(re, ctx.Prompt).Count(screen.Lines(string(data))) > 0 {
		return CheckResult{Passed: true, Message: "found in the iteration's output"}
	}
	return CheckResult{Message: "not found in the iteration's output"}
}

func exitCodeCheck(ctx CheckContext) CheckResult {
	if ctx.ExitCode == nil {
		return CheckResult{Message: "the agent did not exit by itself"}
	}
	return CheckResult{Passed: *ctx.ExitCode == 0, Message: fmt.Sprintf("exit code %d", *ctx.ExitCode)}
}

func scriptCheck(c config.Check, ctx CheckContext) CheckResult {
	if _, err := os.Stat(c.Arg); err != nil {
		return CheckResult{Message: "checker not found: " + c.Arg}
	}
	code := ""
	if ctx.ExitCode != nil {
		code = fmt.Sprint(*ctx.ExitCode)
	}
	env := append(os.Environ(), "SWARM_WORK_DIR="+ctx.WorkDir, fmt.Sprintf("SWARM_ITERATION=%d", ctx.Iteration),
		"SWARM_EXIT_CODE="+code, "SWARM_AGENT_OUTPUT="+ctx.OutputFile)
	res := runShell(shellRun{Dir: ctx.WorkDir, Argv: []string{c.Arg}, Env: env, Timeout: ctx.Timeout, Out: ctx.Out})
	return shellVerdict(res, ctx.Timeout, true)
}
