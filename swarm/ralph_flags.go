package swarm

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
)

// The flags of a looping spawn (swarm spawn --ralph, swarm ralph spawn) and the Regent's.

func ralphFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "ralph", Usage: "run the command in a ralph loop (implies --tmux)"},
		&cli.StringFlag{Name: "prompt-file", Usage: "ralph: prompt given to the agent at every iteration (re-read each time)"},
		&cli.IntFlag{Name: "max-iterations", Usage: "ralph: stop after this many iterations"},
		&cli.IntFlag{Name: "inactivity-timeout", Usage: "ralph: seconds of unchanged screen before the agent is restarted", Value: 60},
		&cli.StringSliceFlag{Name: "done-pattern", Usage: "ralph: regexp that stops the loop when the agent prints it (repeatable)"},
		&cli.IntFlag{Name: "stagnation-limit", Usage: "ralph: stop after this many iterations in a row that change nothing in git (0: never)", Value: ralph.DefaultStagnationLimit},
		&cli.BoolFlag{Name: "no-builtin-markers", Usage: "ralph: do not stop at <promise>COMPLETE</promise> or RALPH_STATUS: COMPLETE"},
		&cli.StringSliceFlag{Name: "check", Usage: "ralph: completion checker (repeatable): command:CMD, file:PATH, marker:RE, exit-code, or an executable; a claim of being done ends the loop only when all pass"},
		&cli.IntFlag{Name: "check-timeout", Usage: "ralph: seconds one checker may run", Value: int(ralph.DefaultCheckTimeout.Seconds())},
		&cli.StringSliceFlag{Name: "hook", Usage: "ralph: TYPE:CMD run with sh -c at pre-iteration, post-iteration, on-complete, on-stagnation or on-failure (repeatable)"},
		&cli.IntFlag{Name: "hook-timeout", Usage: "ralph: seconds one hook may run before it is ended", Value: int(ralph.DefaultHookTimeout.Seconds())},
		&cli.StringFlag{Name: "chain", Usage: `ralph: run loops one after another, each an [agents.NAME] profile of swarm.toml, as in "planner:10 -> builder:20"`},
		&cli.BoolFlag{Name: "verbose", Usage: "ralph --foreground: also show what checkers and hooks print"},
		&cli.IntFlag{Name: "limit-wait", Usage: "ralph: seconds to wait after a usage limit whose reset time cannot be read", Value: int(ralph.DefaultLimitWait.Seconds())},
		&cli.IntFlag{Name: "limit-margin", Usage: "ralph: seconds after a usage limit's reset before the loop tries again", Value: int(ralph.DefaultLimitMargin.Seconds())},
		&cli.IntFlag{Name: "limit-headroom", Usage: "ralph: park before the next iteration once Claude Code says this % or less of its 5-hour limit is left, until it resets (0: never; config: limit_headroom)"},
		&cli.StringFlag{Name: "on-dangerous", Usage: "ralph: a command Claude Code asks for though permissions are skipped: ask (leave it to a person) or no (refuse it) (config: on_dangerous)", Value: config.DangerousAsk},
		&cli.Float64Flag{Name: "max-cost", Usage: "ralph: stop the loop once it has cost more than this many US dollars (read from the agent's own records)"},
		&cli.StringFlag{Name: "prompt-mode", Usage: "ralph: how the prompt reaches the agent: type (into its input prompt) or stdin (headless agents)", Value: config.PromptType},
		&cli.BoolFlag{Name: "foreground", Usage: "ralph: run the loop in this terminal instead of a background monitor (exit 0 done, 1 failed, 3 stagnated, 130 paused)"},
		&cli.IntFlag{Name: "max-context", Usage: "ralph: at this % of the agent's context window ask it to wrap up; at +15 end the iteration (also on compaction)"},
		&cli.IntFlag{Name: "permission-hold", Usage: "ralph: seconds Claude Code's permission request waits for 'swarm answer' before its own dialog shows", Value: int(ralph.DefaultPermissionHold.Seconds())},
		&cli.BoolFlag{Name: "no-agent-signals", Usage: "ralph: do not ask Claude Code, Qwen Code, Copilot CLI, Gemini CLI (hooks), Codex (notify) or opencode (a plugin) for their own signals; read only their screen"},
		&cli.BoolFlag{Name: "no-run", Usage: "ralph: create the worker and its loop but start no monitor; run it later with 'swarm ralph run NAME'"},
		&cli.BoolFlag{Name: "replace", Usage: "ralph: first kill a worker of this name and remove its worktree and loop state"},
		&cli.BoolFlag{Name: "clean-state", Usage: "ralph: remove the earlier loop history of this name (iterations.log) and count afresh"},
		&cli.BoolFlag{Name: "no-worktree", Usage: "ralph: run in the current directory (the default; the opposite of --worktree)"},
		&cli.BoolFlag{Name: "check-done-continuous", Usage: "ralph: look for the done pattern while the agent works (always done; accepted for scripts)"},
		&cli.BoolFlag{Name: "no-check-done-continuous", Usage: "ralph: accepted for scripts; the done pattern is looked for while the agent works all the same"},
		&cli.IntFlag{Name: "max-failures", Usage: "regent: consecutive failures before the loop stops as failed and escalates", Value: ralph.MaxConsecutiveFailures},
		&cli.IntFlag{Name: "retry-backoff", Usage: "regent: fixed seconds between retries (default: 1, 2, 4, ... up to 300)"},
		&cli.IntFlag{Name: "hang-timeout", Usage: "regent: seconds without real progress on screen (spinners and counters do not count) before the agent is restarted; 0 turns it off", Value: 300},
		&cli.IntFlag{Name: "iteration-timeout", Usage: "regent: longest wall time of one iteration in seconds (0: no limit)"},
		&cli.StringFlag{Name: "test-command", Usage: "regent: command (sh -c) run in the worker's directory after an iteration that made commits"},
		&cli.BoolFlag{Name: "rollback-on-test-failure", Usage: "regent: revert the iteration's commits when --test-command fails"},
		&cli.BoolFlag{Name: "push", Usage: "regent: git push after reverting"},
		&cli.StringFlag{Name: "webhook", Usage: "regent: URL that receives a JSON POST when the loop gives up"},
		&cli.StringSliceFlag{Name: "notify", Usage: "ralph: " + ralph.NotifyUsage},
		&cli.BoolFlag{Name: "no-regent", Usage: "regent: run the loop unsupervised (no resurrection, hang detection or test gating)"},
	}
}

// regentConfig is the Regent's policy for a loop started where cfg was loaded (see
// ralph.ResolveSupervision): only the flags given on the command line override swarm.toml.
func regentConfig(c *cli.Context, cfg *config.Config) (*ralph.SupervisionConfig, error) {
	return regentConfigOf(c, cfg, "max-failures")
}

// regentConfigOf is regentConfig with the flag that holds the Regent's failure limit (""
// when the command's --max-failures means something else, as for swarm agent).
func regentConfigOf(c *cli.Context, cfg *config.Config, failuresFlag string) (*ralph.SupervisionConfig, error) {
	var f ralph.SupervisionFlags
	if failuresFlag != "" {
		setFlag(c, failuresFlag, c.Int, &f.MaxFailures)
	}
	setFlag(c, "retry-backoff", c.Int, &f.RetryBackoffSeconds)
	setFlag(c, "hang-timeout", c.Int, &f.HangTimeoutSeconds)
	setFlag(c, "iteration-timeout", c.Int, &f.IterationTimeout)
	setFlag(c, "test-command", c.String, &f.TestCommand)
	setFlag(c, "rollback-on-test-failure", c.Bool, &f.RollbackOnTestFailure)
	setFlag(c, "push", c.Bool, &f.Push)
	setFlag(c, "webhook", c.String, &f.Webhook)
	f.NoSupervision = c.Bool("no-regent")
	rc, err := ralph.ResolveSupervision(cfg, f)
	if err != nil {
		return nil, fail("%w", err)
	}
	return &rc, nil
}

// loopSettings are the loop's checkers, hooks and stop rules for a loop started where cfg was
// loaded (see ralph.ResolveLoop): only the flags given on the command line override swarm.toml.
func loopSettings(c *cli.Context, cfg *config.Config) (ralph.LoopSettings, error) {
	return loopSettingsWith(c, cfg, c.StringSlice("check"))
}

// loopSettingsWith is loopSettings with the --check values to use (a chain keeps those of
// its steps apart).
func loopSettingsWith(c *cli.Context, cfg *config.Config, checks []string) (ralph.LoopSettings, error) {
	base, _ := os.Getwd()
	f := ralph.LoopFlags{Checks: checks, Base: base, NoBuiltinMarkers: c.Bool("no-builtin-markers"),
		Notify: c.StringSlice("notify")}
	for _, spec := range c.StringSlice("hook") {
		h, err := config.ParseHook(spec)
		if err != nil {
			return ralph.LoopSettings{}, fail("%w", err)
		}
		f.Hooks = append(f.Hooks, h)
	}
	setFlag(c, "stagnation-limit", c.Int, &f.StagnationLimit)
	setFlag(c, "check-timeout", c.Int, &f.CheckTimeout)
	setFlag(c, "hook-timeout", c.Int, &f.HookTimeout)
	setFlag(c, "max-cost", c.Float64, &f.MaxCost)
	setFlag(c, "limit-headroom", c.Int, &f.LimitHeadroom)
	setFlag(c, "on-dangerous", c.String, &f.OnDangerous)
	if h := f.LimitHeadroom; h != nil && (*h < 0 || *h > config.MaxLimitHeadroom) {
		return ralph.LoopSettings{}, fail("--limit-headroom must be a percentage from 0 (never) to %d", config.MaxLimitHeadroom)
	}
	if d := f.OnDangerous; d != nil && *d != config.DangerousAsk && *d != config.DangerousNo {
		return ralph.LoopSettings{}, fail("--on-dangerous is ask or no, not %q", *d)
	}
	if f.MaxCost != nil && *f.MaxCost <= 0 {
		return ralph.LoopSettings{}, fail("--max-cost must be more than 0 (US dollars)")
	}
	for _, t := range []*int{f.CheckTimeout, f.HookTimeout} {
		if t != nil && *t < 1 {
			return ralph.LoopSettings{}, fail("--check-timeout and --hook-timeout must be at least 1 second")
		}
	}
	ls, err := ralph.ResolveLoop(cfg, f)
	if err != nil {
		return ralph.LoopSettings{}, fail("%w", err)
	}
	return ls, nil
}

// setFlag points dst at the flag's value when the flag was given, and leaves it nil otherwise.
func setFlag[T any](c *cli.Context, name string, get func(string) T, dst **T) {
	if c.IsSet(name) {
		v := get(name)
		*dst = &v
	}
}

// checkPromptFile makes sure the prompt can be read now, so a typo fails the spawn instead of
// the first iteration; it returns the absolute path the loop re-reads it from.
func checkPromptFile(arg string) (string, error) {
	abs, err := filepath.Abs(arg)
	if err != nil {
		return "", fail("prompt file not found: %s", arg)
	}
	fi, err := os.Stat(abs)
	if errors.Is(err, os.ErrNotExist) {
		return "", fail("prompt file not found: %s", arg)
	}
	if err != nil || fi.IsDir() {
		return "", fail("cannot read prompt file: %s", arg)
	}
	f, err := os.Open(abs)
	if err != nil {
		return "", fail("cannot read prompt file: %s", arg)
	}
	f.Close()
	return abs, nil
}

// checkMaxIterations refuses an iteration limit below one (spawn and resume).
func checkMaxIterations(n int) error {
	if n < 1 {
		return fail("--max-iterations must be at least 1")
	}
	return nil
}

// warnManyIterations says that a large limit is allowed, but costly.
func warnManyIterations(e *env, n int) {
	if n > 50 {
		e.warnf("high iteration count (>50) may consume significant resources")
	}
}
