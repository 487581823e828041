package swarm

import (
	"fmt"
	"os"
	"time"

	"github.com/google/uuid"
	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/ralph/inbox"
	"github.com/swarm-dev/swarm/ralph/sharedinbox"
	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state"
)

// `swarm agent`: a looping worker that works through the project's spec inbox.

func agentCommand() *cli.Command {
	return &cli.Command{
		Name:      "agent",
		Usage:     "work through the project's spec inbox: plan, build and commit one spec after another",
		ArgsUsage: "-- COMMAND [ARGS...]",
		Description: `Starts COMMAND as a looping worker (tmux, detached, attachable) that takes the specs of
the project's inbox (swarm inbox add) first in, first out. For each spec: FETCH (it becomes
active), PLAN (the agent writes its tasks to ralph/plan.jsonl), CONSTRUCT (a loop on the
spec until its completion rule holds: a done marker or DONE file, and the --check
checkers), COMMIT (every change in one commit "ralph: complete NAME" with the spec, tasks,
duration and cost). A spec that fails has its changes stashed ("ralph: failed NAME") and
the agent goes on; it stops when the inbox is empty or a limit is reached.

The prompts are ralph/PLAN_PROMPT.md and ralph/BUILD_PROMPT.md of the project, or swarm's
own (swarm ralph template --plan / --build). The agent log is
$SWARM_DIR/ralph/NAME/agent-*.log: in the project, the agent writes only the inbox, the plan,
the session and the spec's own changes, and keeps the plan and the session out of git status
(the repository's .git/info/exclude). swarm ralph status NAME shows the spec, the inbox
and the session. SIGINT or swarm ralph pause NAME: the current iteration completes and the
spec goes back to pending; swarm ralph resume NAME, or a new swarm agent after swarm kill
NAME, goes on with it (ralph/.agent-session).
With --foreground it exits 0 when every spec it took was committed, 1 when any failed, 130
when it was paused.

--shared: agents in several clones of the project (on this host or others) work through one
queue, each spec done once. The queue is ralph/inbox.jsonl as committed on the remote's
default branch (swarm inbox add, then commit and push it with the spec files), merged into
this clone's inbox at each FETCH. A spec is taken by creating its claim ref
refs/swarm/claims/ID on the remote (a push that fails when another agent made it first); the
claim is renewed at each iteration, and one not renewed for --claim-timeout may be taken
over. A finished spec is pushed as the branch swarm/spec/ID (or, with --land-on BRANCH, onto
BRANCH when it applies cleanly) and its claim marked done. The host in the claims is
$SWARM_HOST_NAME, else the machine's name. See swarm guide agent-mode.

Examples:
   swarm inbox add feature-x.md && swarm agent --name builder -- claude --dangerously-skip-permissions
   swarm agent --name builder --max-specs 5 --max-cost 10 --check 'command:go test ./...' -- claude
   swarm agent --name planner --dry-run -- claude
   swarm agent --name b --foreground --max-iterations 10 -- codex
   swarm agent --name builder --shared -- claude
   swarm agent --name builder --shared --remote upstream --claim-timeout 30m --land-on main -- claude`,
		Flags: agentFlags(),
		Action: func(c *cli.Context) error {
			if host, name, err := spawnHost(c); err != nil || host != "" {
				if err != nil {
					return err
				}
				return spawnOnHost(c, host, name)
			}
			return runAgent(c)
		},
	}
}

// agentOmits are the spawn and loop flags that do not apply: agent mode writes its own
// prompts, works in the project's checkout, and its --max-failures counts specs.
var agentOmits = map[string]bool{"ralph": true, "prompt-file": true, "chain": true, "no-run": true, "tmux": true,
	"worktree": true, "branch": true, "worktree-dir": true, "no-worktree": true, "max-failures": true,
	"check-done-continuous": true, "no-check-done-continuous": true}

func agentFlags() []cli.Flag {
	var flags []cli.Flag
	for _, f := range append(spawnFlags(), ralphFlags()...) {
		switch name := f.Names()[0]; {
		case agentOmits[name]:
		case name == "max-iterations":
			flags = append(flags, &cli.IntFlag{Name: name, Value: 20, Usage: "iterations of each spec's CONSTRUCT loop"})
		case name == "max-cost":
			flags = append(flags, &cli.Float64Flag{Name: name, Usage: "stop once the session has cost more than this many US dollars"})
		default:
			flags = append(flags, f)
		}
	}
	return append(append(flags,
		&cli.IntFlag{Name: "max-specs", Usage: "stop after completing this many specs (default: no limit)"},
		&cli.IntFlag{Name: "max-failures", Value: 3, Usage: "stop after this many specs failed in a row (0: never)"},
		&cli.BoolFlag{Name: "dry-run", Usage: "plan each spec (plans kept beside the agent log, $SWARM_DIR/ralph/NAME/) and execute nothing"},
		&cli.StringFlag{Name: "on-failure", Value: ralph.OnFailureStash, Usage: "a failed spec's changes: stash (git stash, 'ralph: failed NAME') or reset (discarded)"},
	), agentSharedFlags()...)
}

// agentOptions is an agent about to start: its worker and loop, and its agent mode.
type agentOptions struct {
	spawn ralphSpawnOptions
	mode  *ralph.AgentMode
}

// runAgent reads the flags before the state directory is opened: a usage error leaves
// nothing behind.
func runAgent(c *cli.Context) error {
	o, err := agentFromFlags(usageEnv(c), c)
	if err != nil {
		return err
	}
	e, err := openEnv(c)
	if err != nil {
		return err
	}
	return startAgent(e, o)
}

func agentFromFlags(e *env, c *cli.Context) (agentOptions, error) {
	if c.Int("max-specs") < 0 || c.Int("max-failures") < 0 {
		return agentOptions{}, fail("--max-specs and --max-failures must be 0 (no limit) or more")
	}
	if f := c.String("on-failure"); f != ralph.OnFailureStash && f != ralph.OnFailureReset {
		return agentOptions{}, fail("invalid --on-failure '%s' (expected stash or reset)", f)
	}
	lo := loopOptionsFromFlags(c)
	if err := lo.checkSettings(e); err != nil {
		return agentOptions{}, err
	}
	w, _, err := spawnOptionsFromFlags(c)
	if err != nil {
		return agentOptions{}, err
	}
	project, err := agentProject(w.Cwd)
	if err != nil {
		return agentOptions{}, err
	}
	w.Cwd = project
	cfg := config.Load(project)
	rc, err := regentConfigOf(c, cfg, "")
	if err != nil {
		return agentOptions{}, err
	}
	ls, err := loopSettings(c, cfg)
	if err != nil {
		return agentOptions{}, err
	}
	shared, err := sharedFromFlags(c, project, w.Env)
	if err != nil {
		return agentOptions{}, err
	}
	am := &ralph.AgentMode{Project: project, MaxSpecs: c.Int("max-specs"), MaxCost: ls.MaxCost, MaxFailures: c.Int("max-failures"),
		DryRun: c.Bool("dry-run"), OnFailure: c.String("on-failure"), MaxIterations: lo.max, Checks: ls.Checks, Shared: shared}
	ls.Checks = nil
	return agentOptions{spawn: ralphSpawnOptions{worker: w, loop: lo, settings: ls, regent: rc}, mode: am}, nil
}

// agentProject is the git root of dir (default: the current directory): agent mode commits
// each spec there.
func agentProject(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	ib, err := openInbox(dir)
	if err != nil {
		return "", err
	}
	if _, err := gitTopLevel(ib.Root); err != nil {
		return "", fail("agent mode commits each spec: %s is not in a git repository (git init first)", ib.Root)
	}
	return ib.Root, nil
}

// startAgent takes the first spec (or the interrupted one of a session) and starts the
// worker on it. When nothing can be started, the spec goes back and the session is as it was.
func startAgent(e *env, o agentOptions) error {
	am, name := o.mode, o.spawn.worker.Name
	if _, err := (inbox.Inbox{Root: am.Project}).Load(); err != nil {
		return fail("%w", err)
	}
	prev, err := ralph.LoadSession(am.Project)
	if err != nil {
		return fail("%w", err)
	}
	if err := checkSessionFree(e, am.Project, prev); err != nil {
		return err
	}
	now := time.Now()
	say, startLog := beginSession(e, am, prev, name, now)
	prompt, stop, err := ralph.NextSpec(am, sharedinbox.QueueOf(am), now, 0, say)
	if err != nil {
		return fail("%w", err)
	}
	if stop == "" || len(am.Session.Undelivered) > 0 {
		excludeAgentFiles(e, am.Project)
	}
	if stop != "" {
		say("%s", am.StopMessage(stop))
		if n := len(am.Session.Undelivered); n > 0 {
			_ = state.WriteJSON(ralph.SessionPath(am.Project), am.Session)
			return fail("%s committed here not on %s yet: run swarm agent --shared again once it can be reached",
				words.Plural(n, "spec"), am.Shared.Remote)
		}
		_ = os.Remove(ralph.SessionPath(am.Project))
		return nil
	}
	if am.Stage == ralph.StageConstruct {
		say("CONSTRUCT: starting iteration 1")
	}
	am.RunID = uuid.NewString()
	o.spawn.agent, o.spawn.agentPrompt, o.spawn.agentLog = am, prompt, startLog
	if am.MaxCost > 0 {
		o.spawn.settings.MaxCost = max(am.MaxCost-am.CostBase, 0.01)
	}
	if err := spawnRalph(e, o.spawn); err != nil {
		undoAgentStart(am, prev)
		return err
	}
	return nil
}

// excludeAgentFiles has git ignore agent mode's own files in the project (its plan and
// session) through the repository's info/exclude, so that git status shows the user's work
// only. Without it the agent still works: it is said, not fatal.
func excludeAgentFiles(e *env, project string) {
	if err := git.Exclude(project, ralph.AgentExcludedHeader, ralph.AgentExcluded); err != nil {
		e.warnf("cannot keep agent mode's own files out of git status: %v", err)
	}
}

// beginSession starts the agent's session, or takes up the interrupted one, and returns how
// the agent says things before its monitor runs (to the terminal, and to the agent log once
// it starts: an agent that finds nothing to do leaves no log) and what starts the log.
func beginSession(e *env, am *ralph.AgentMode, prev *ralph.AgentSession, name string, now time.Time) (say func(string, ...any), startLog func()) {
	am.Log = ralph.DirFor(e.Dir(), name).AgentLogPath(now)
	var said []string
	say = func(format string, args ...any) {
		said = append(said, fmt.Sprintf(format, args...))
		fmt.Fprintf(e.stdout, format+"\n", args...)
	}
	startLog = func() {
		for _, line := range said {
			_ = ralph.AgentLog(am.Log, now, "%s", line)
		}
		fmt.Fprintf(e.stdout, "Agent log: %s\n", homeRelative(am.Log))
	}
	if prev == nil {
		am.Session = ralph.AgentSession{StartedAt: inbox.Now(now), Worker: name}
		say("Agent started")
	} else {
		am.Session, am.CostBase = *prev, prev.TotalCost
		am.Session.Worker = name
		say("Agent resumed the session of %s (%s completed, %d failed, $%.2f spent)",
			prev.StartedAt, words.Plural(prev.SpecsCompleted, "spec"), prev.SpecsFailed, prev.TotalCost)
	}
	return say, startLog
}

// checkSessionFree refuses a second agent on an inbox while the session's agent still holds
// it: running, waiting, or paused with its spec to go on with.
func checkSessionFree(e *env, project string, s *ralph.AgentSession) error {
	if s == nil || s.Worker == "" {
		return nil
	}
	ld := ralph.DirFor(e.Dir(), s.Worker)
	am, err := ld.LoadAgentMode()
	if err != nil || am == nil || am.Project != project || am.Stage == "" {
		return nil
	}
	st, err := ld.Load()
	if err != nil {
		return nil
	}
	switch st.Status {
	case ralph.StatusRunning, ralph.StatusWaiting:
		return fail("agent '%s' is working on this inbox (swarm ralph status %s); pause it with 'swarm ralph pause %s'", s.Worker, s.Worker, s.Worker)
	case ralph.StatusPaused:
		return fail("agent '%s' is paused on this inbox: go on with 'swarm ralph resume %s', or end it with 'swarm kill %s' and start a new agent", s.Worker, s.Worker, s.Worker)
	}
	return nil
}

// undoAgentStart puts the spec back and the session as it was, after a failed start.
func undoAgentStart(am *ralph.AgentMode, prev *ralph.AgentSession) {
	_ = ralph.RequeueSpec(am)
	if am.Shared != nil {
		_, _ = sharedinbox.Release(am)
	}
	if prev == nil {
		_ = os.Remove(ralph.SessionPath(am.Project))
		return
	}
	_ = state.WriteJSON(ralph.SessionPath(am.Project), prev)
}
