package driver

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph"
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

// RunChecks runs every checker, in order, and returns their answers. cutShort says ctx ended
// before they all had their say (the loop is being stopped): the answers so far prove
// nothing either way, and the checker that was running is ended with its process group.
func RunChecks(ctx context.Context, checks []config.Check, cc CheckContext) (results []ralph.CheckResult, cutShort bool) {
	results = make([]ralph.CheckResult, 0, len(checks))
	for _, c := range checks {
		r, cut := runCheck(ctx, c, cc)
		if cut {
			return results, true
		}
		r.Name = c.Spec
		results = append(results, r)
	}
	return results, false
}

// runCheck is one checker's answer; cutShort says ctx ended while it ran.
func runCheck(ctx context.Context, c config.Check, cc CheckContext) (r ralph.CheckResult, cutShort bool) {
	switch c.Kind {
	case config.CheckCommand:
		return commandCheck(ctx, c, cc)
	case config.CheckFile:
		return fileCheck(c, cc), false
	case config.CheckMarker:
		return markerCheck(c, cc), false
	case config.CheckExitCode:
		return exitCodeCheck(cc), false
	}
	return scriptCheck(ctx, c, cc)
}

func commandCheck(ctx context.Context, c config.Check, cc CheckContext) (ralph.CheckResult, bool) {
	res := runShell(ctx, shellRun{Dir: cc.WorkDir, Argv: []string{"sh", "-c", c.Arg}, Env: os.Environ(),
		Timeout: cc.Timeout, Out: cc.Out})
	return shellVerdict(res, cc.Timeout, false), res.CutShort
}

// shellVerdict turns a checker's run into its answer: the exit code, and a line of its output
// (the first for a script, which speaks for itself; the last for a command, where errors end up).
func shellVerdict(res shellResult, timeout time.Duration, first bool) ralph.CheckResult {
	switch {
	case res.Err != nil:
		return ralph.CheckResult{Message: "cannot run: " + res.Err.Error()}
	case res.TimedOut:
		return ralph.CheckResult{Message: fmt.Sprintf("timed out after %s", timeout)}
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
	return ralph.CheckResult{Passed: res.Code == 0, Message: msg}
}

func fileCheck(c config.Check, ctx CheckContext) ralph.CheckResult {
	path := c.Arg
	if !filepath.IsAbs(path) {
		path = filepath.Join(ctx.WorkDir, path)
	}
	if _, err := os.Stat(path); err != nil {
		return ralph.CheckResult{Message: c.Arg + " does not exist"}
	}
	return ralph.CheckResult{Passed: true, Message: c.Arg + " exists"}
}

func markerCheck(c config.Check, ctx CheckContext) ralph.CheckResult {
	re, err := regexp.Compile(c.Arg)
	if err != nil {
		return ralph.CheckResult{Message: err.Error()}
	}
	data, err := os.ReadFile(ctx.OutputFile)
	if err != nil {
		return ralph.CheckResult{Message: "no output of this iteration to search"}
	}
	if screen.NewDoneMatcher(re, ctx.Prompt).Count(screen.Lines(string(data))) > 0 {
		return ralph.CheckResult{Passed: true, Message: "found in the iteration's output"}
	}
	return ralph.CheckResult{Message: "not found in the iteration's output"}
}

func exitCodeCheck(ctx CheckContext) ralph.CheckResult {
	if ctx.ExitCode == nil {
		return ralph.CheckResult{Message: "the agent did not exit by itself"}
	}
	return ralph.CheckResult{Passed: *ctx.ExitCode == 0, Message: fmt.Sprintf("exit code %d", *ctx.ExitCode)}
}

func scriptCheck(ctx context.Context, c config.Check, cc CheckContext) (ralph.CheckResult, bool) {
	if _, err := os.Stat(c.Arg); err != nil {
		return ralph.CheckResult{Message: "checker not found: " + c.Arg}, false
	}
	code := ""
	if cc.ExitCode != nil {
		code = fmt.Sprint(*cc.ExitCode)
	}
	env := append(os.Environ(), "SWARM_WORK_DIR="+cc.WorkDir, fmt.Sprintf("SWARM_ITERATION=%d", cc.Iteration),
		"SWARM_EXIT_CODE="+code, "SWARM_AGENT_OUTPUT="+cc.OutputFile)
	res := runShell(ctx, shellRun{Dir: cc.WorkDir, Argv: []string{c.Arg}, Env: env, Timeout: cc.Timeout, Out: cc.Out})
	return shellVerdict(res, cc.Timeout, true), res.CutShort
}
