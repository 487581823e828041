package swarm

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/google/uuid"
	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/loop"
)

func ralphSpawnCommand() *cli.Command {
	return &cli.Command{
		Name:      "spawn",
		Usage:     "start a looping worker (same as swarm spawn --ralph)",
		ArgsUsage: "-- COMMAND [ARGS...]",
		Description: `Starts COMMAND in a tmux window and a monitor that restarts it, with PROMPT, each
iteration. --prompt-file and --max-iterations are required.

Examples:
   swarm ralph spawn --name agent --prompt-file PROMPT.md --max-iterations 20 -- claude
   swarm ralph spawn --name fix --worktree --prompt-file PROMPT.md --max-iterations 10 \
       --done-pattern 'ALL TASKS COMPLETE' --test-command 'go test ./...' --rollback-on-test-failure -- claude
   swarm ralph spawn --name batch --prompt-mode stdin --prompt-file PROMPT.md --max-iterations 5 -- claude -p
   swarm ralph spawn --name w --chain "planner:10 -> builder:20"    (profiles: [agents.NAME] in swarm.toml)`,
		Flags: loopSpawnFlags(),
		Action: func(c *cli.Context) error {
			if host, name, err := spawnHost(c); err != nil || host != "" {
				if err != nil {
					return err
				}
				return spawnOnHost(c, host, name)
			}
			return runRalphSpawn(c)
		},
	}
}

// loopSpawnFlags are spawn's flags and the loop's, as `ralph spawn` says them: a loop runs in
// tmux whatever --tmux says, so its help does not offer a detached process.
func loopSpawnFlags() []cli.Flag {
	flags := append(spawnFlags(), ralphFlags()...)
	for i, f := range flags {
		if f.Names()[0] == "tmux" {
			flags[i] = &cli.BoolFlag{Name: "tmux", Usage: "accepted for scripts: a loop always runs in a window of swarm's private tmux server"}
		}
	}
	return flags
}

// loopOptions are the ralph flags: as given until check has passed them.
type loopOptions struct {
	promptArg    string // as the user wrote it
	promptFile   string // absolute, set by check
	max          int
	maxSet       bool
	inactivity   int
	donePatterns []string
	stagnation   int
	verbose      bool
	limitWait    int
	limitMargin  int
	promptMode   string
	readyPattern string
	readyTimeout int
	foreground   bool
	noRun        bool
	replace      bool
	cleanState   bool
	maxContext   int
	noSignals    bool
	permHold     int
	// requiredBy is what makes --prompt-file and --max-iterations required, as typed: --ralph
	// on spawn, or the command itself (swarm ralph spawn).
	requiredBy string
}

func loopOptionsFromFlags(c *cli.Context) loopOptions {
	return loopOptions{
		promptArg:    c.String("prompt-file"),
		max:          c.Int("max-iterations"),
		maxSet:       c.IsSet("max-iterations"),
		inactivity:   c.Int("inactivity-timeout"),
		donePatterns: c.StringSlice("done-pattern"),
		verbose:      c.Bool("verbose"),
		limitWait:    c.Int("limit-wait"),
		limitMargin:  c.Int("limit-margin"),
		stagnation:   c.Int("stagnation-limit"),
		promptMode:   c.String("prompt-mode"),
		readyPattern: c.String("ready-pattern"),
		readyTimeout: c.Int("ready-timeout"),
		foreground:   c.Bool("foreground"),
		noRun:        c.Bool("no-run"),
		replace:      c.Bool("replace"),
		cleanState:   c.Bool("clean-state"),
		maxContext:   c.Int("max-context"),
		noSignals:    c.Bool("no-agent-signals"),
		permHold:     c.Int("permission-hold"),
		requiredBy:   requiredBy(c),
	}
}

// maxPermissionHold bounds --permission-hold: a day, a night's wait and more.
const maxPermissionHold = 24 * 60 * 60

// check validates the ralph flags in the order and with the messages of the loop spec.
func (o *loopOptions) check(e *env) error {
	for _, missing := range []struct {
		flag  string
		unset bool
	}{{"--prompt-file", o.promptArg == ""}, {"--max-iterations", !o.maxSet}} {
		switch {
		case !missing.unset:
		case o.requiredBy == "--ralph" || o.requiredBy == "":
			return fail("--ralph requires %s", missing.flag)
		default:
			return fail("%s requires %s (see '%s --help')", o.requiredBy, missing.flag, o.requiredBy)
		}
	}
	abs, err := checkPromptFile(o.promptArg)
	if err != nil {
		return err
	}
	o.promptFile = abs
	return o.checkSettings(e)
}

// checkSettings validates the loop flags other than the prompt (agent mode writes its own).
func (o *loopOptions) checkSettings(e *env) error {
	if err := checkMaxIterations(o.max); err != nil {
		return err
	}
	warnManyIterations(e, o.max)
	if o.inactivity < 1 {
		return fail("--inactivity-timeout must be at least 1 second")
	}
	if o.permHold < 0 || o.permHold > maxPermissionHold {
		return fail("--permission-hold must be between 0 and %d seconds", maxPermissionHold)
	}
	for _, p := range o.donePatterns {
		if p == "" {
			return fail("--done-pattern is empty")
		}
		if _, err := regexp.Compile(p); err != nil {
			return fail("invalid --done-pattern: %w", err)
		}
	}
	switch o.promptMode {
	case config.PromptType, config.PromptStdin:
	case "tui":
		o.promptMode = config.PromptType
	default:
		return fail("invalid --prompt-mode '%s' (expected type or stdin)", o.promptMode)
	}
	if o.stagnation < 0 {
		return fail("--stagnation-limit must be 0 (off) or more")
	}
	if o.maxContext < 0 || o.maxContext > 100 {
		return fail("--max-context must be a percentage from 1 to 100")
	}
	if o.limitWait < 1 || o.limitMargin < 1 {
		return fail("--limit-wait and --limit-margin must be at least 1 second")
	}
	if o.noRun && o.foreground {
		return fail("--no-run and --foreground contradict each other")
	}
	return nil
}

// ralphSpawnOptions is a looping worker: the worker as plain spawn starts it, the loop around
// it, and the Regent's policy over the loop.
type ralphSpawnOptions struct {
	worker   spawnOptions
	loop     loopOptions
	settings ralph.LoopSettings
	regent   *ralph.SupervisionConfig
	chain    *ralph.ChainState // --chain: the steps, the first of which starts now
	// swarm agent: the agent's state, and the prompt of its first stage
	agent       *ralph.AgentMode
	agentPrompt string
	// agentLog starts the agent log with what the agent said before its loop had a directory
	agentLog func()
}

// runRalphSpawn is `swarm spawn --ralph` and `swarm ralph spawn`: the flags are read before
// the state directory is opened, so a usage error leaves nothing behind.
func runRalphSpawn(c *cli.Context) error {
	o, err := ralphSpawnFromFlags(usageEnv(c), c)
	if err != nil {
		return err
	}
	e, err := openEnv(c)
	if err != nil {
		return err
	}
	return spawnRalph(e, o)
}

// ralphSpawnFromFlags reads the loop flags first, so their errors come before those of the
// flags every spawn shares, as the loop spec orders them.
func ralphSpawnFromFlags(e *env, c *cli.Context) (ralphSpawnOptions, error) {
	if c.IsSet("chain") {
		return chainSpawnFromFlags(e, c)
	}
	lo := loopOptionsFromFlags(c)
	if err := lo.check(e); err != nil {
		return ralphSpawnOptions{}, err
	}
	w, _, err := spawnOptionsFromFlags(c)
	if err != nil {
		return ralphSpawnOptions{}, err
	}
	if w.Worktree && c.Bool("no-worktree") {
		return ralphSpawnOptions{}, fail("--worktree and --no-worktree contradict each other")
	}
	dir := w.Cwd
	if dir == "" {
		dir, _ = os.Getwd()
	}
	dir, _ = filepath.Abs(dir)
	cfg := config.Load(dir)
	rc, err := regentConfig(c, cfg)
	if err != nil {
		return ralphSpawnOptions{}, err
	}
	ls, err := loopSettings(c, cfg)
	if err != nil {
		return ralphSpawnOptions{}, err
	}
	return ralphSpawnOptions{worker: w, loop: lo, settings: ls, regent: rc}, nil
}

// spawnRalph starts a looping worker: the first iteration's agent in a tmux window, the loop
// state, and the monitor that drives the rest (or, in the foreground, drives it here).
func spawnRalph(e *env, o ralphSpawnOptions) error {
	name := o.worker.Name
	if err := makeRoomForLoop(e, o.loop, name); err != nil {
		return err
	}
	ld := ralph.DirFor(e.Dir(), name)
	if o.agent != nil {
		if err := loop.WriteAgentPrompt(ld, o.agentPrompt); err != nil {
			return fail("%w", err)
		}
		if o.agentLog != nil {
			o.agentLog()
		}
		o.loop.promptFile = ld.AgentPromptPath()
	}
	st := o.loopState()
	warnIgnored(e, st.ConfigFiles)
	warnSandbox(e, o.worker.SandboxNotes)
	if warn := ralph.BudgetBlindSpot(st.MaxCost, o.worker.Argv, o.worker.Getenv, st.Pricing); warn != "" {
		e.warnf("%s", warn)
	}
	w, err := loop.On(e.Machine).Begin(o.worker.SpawnOptions, st)
	if err != nil {
		return err
	}
	if err := loop.SaveSequence(ld, o.chain, o.agent); err != nil {
		loop.On(e.Machine).Undo(w)
		return fail("%w", err)
	}
	if err := startSpawnHeartbeat(e, name, o.worker.Heartbeat); err != nil {
		loop.On(e.Machine).Undo(w)
		return err
	}
	switch {
	case o.loop.noRun:
		printLoopSpawned(e, w, st.MaxIterations)
		fmt.Fprintf(e.stdout, "loop not started (--no-run): run it with 'swarm ralph run %s'\n", name)
		return nil
	case o.loop.foreground:
		printLoopSpawned(e, w, st.MaxIterations)
		fmt.Fprintln(e.stdout, startingLine(name, st.MaxIterations))
		return runMonitor(e, monitorOptions{name: name, out: e.stdout, foreground: true, verbose: o.loop.verbose})
	}
	loop.AppendMonitorLog(ld, startingLine(name, st.MaxIterations))
	if err := loop.On(e.Machine).StartMonitor(name); err != nil {
		loop.On(e.Machine).Undo(w)
		return fail("cannot start the loop monitor: %w", err)
	}
	printLoopSpawned(e, w, st.MaxIterations)
	return nil
}

// makeRoomForLoop frees the name for the new loop as the flags ask (--replace, --clean-state)
// and says what it did.
func makeRoomForLoop(e *env, lo loopOptions, name string) error {
	room, err := loop.On(e.Machine).MakeRoom(name, lo.replace, lo.cleanState)
	if room.Replaced {
		fmt.Fprintf(e.stdout, "replaced existing worker %s\n", name)
	}
	if room.Cleared {
		fmt.Fprintf(e.stdout, "cleared ralph state for %s\n", name)
	}
	return err
}

// loopState is the new loop's settings; the loop's start fills in the rest.
func (o ralphSpawnOptions) loopState() *ralph.State {
	st := &ralph.State{
		PromptFile:            o.loop.promptFile,
		MaxIterations:         o.loop.max,
		InactivityTimeout:     o.loop.inactivity,
		PromptMode:            o.loop.promptMode,
		ReadyPattern:          o.loop.readyPattern,
		ReadyTimeout:          o.loop.readyTimeout,
		MaxContext:            o.loop.maxContext,
		PermissionHoldSeconds: &o.loop.permHold,
		StagnationLimit:       o.settings.StagnationLimit,
		Checks:                o.settings.Checks,
		CheckTimeout:          o.settings.CheckTimeout,
		Hooks:                 o.settings.Hooks,
		HookTimeout:           o.settings.HookTimeout,
		MaxCost:               o.settings.MaxCost,
		LimitWait:             o.loop.limitWait,
		LimitMargin:           o.loop.limitMargin,
		Unattended:            ralph.Unattended{LimitHeadroom: o.settings.LimitHeadroom, OnDangerous: o.settings.OnDangerous},
		Pricing:               o.settings.Pricing,
		RunID:                 uuid.NewString(),
		Supervision:           o.regent,
		NoAgentSignals:        o.loop.noSignals,
		ConfigFiles:           o.settings.Sources,
	}
	if o.settings.Notify.Any() {
		n := o.settings.Notify
		st.Notify = &n
	}
	if len(o.worker.Argv) > 0 {
		st.Agent = filepath.Base(o.worker.Argv[0])
	}
	st.SetDonePatterns(o.loop.donePatterns, o.settings.BuiltinMarkers)
	if o.chain != nil {
		st.ApplyStep(0, o.chain.Steps[0], st.RunID)
	}
	if o.agent != nil {
		st.ApplyAgentStage(o.agent, o.loop.promptFile)
	}
	return st
}

func startingLine(name string, max int) string {
	return fmt.Sprintf("[ralph] %s: starting iteration 1/%d", name, max)
}

// printLoopSpawned says a loop runs, once nothing can undo it any more.
func printLoopSpawned(e *env, w *state.Worker, max int) {
	fmt.Fprintf(e.stdout, "spawned %s (tmux: %s:%s) [ralph mode: iteration 1/%d]\n", w.Name, w.Tmux.Session, w.Tmux.Window, max)
}

// warnIgnored says which configuration files a spawn ignored, and why: their settings would
// otherwise be missed without a word.
func warnIgnored(e *env, sources []config.Source) {
	for _, s := range sources {
		if s.Ignored {
			e.warnf("%s", s.Warning())
		}
	}
}
