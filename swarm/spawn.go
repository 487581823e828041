package swarm

import (
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/heartbeat"
	"github.com/swarm-dev/swarm/swarm/worker"
)

func spawnFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "name", Aliases: []string{"n"}, Usage: "worker name (letters, digits, '-', '_'; at most 48) (required)"},
		&cli.BoolFlag{Name: "tmux", Usage: "run in a window of swarm's private tmux server (default: detached process)"},
		&cli.StringFlag{Name: "session", Usage: "tmux session for the window", Value: worker.DefaultSession},
		&cli.BoolFlag{Name: "worktree", Usage: "run in a new git worktree <repo>-worktrees/<name> on branch <name>"},
		&cli.StringFlag{Name: "branch", Usage: "branch for --worktree (default: the worker name)"},
		&cli.StringFlag{Name: "worktree-dir", Usage: "directory the --worktree goes in, as <dir>/<name> (default: <repo>-worktrees; relative to the repository's parent)"},
		&cli.StringSliceFlag{Name: "tag", Usage: "label the worker (repeatable)"},
		&cli.StringSliceFlag{Name: "env", Usage: "set an environment variable KEY=VAL (repeatable)"},
		&cli.StringFlag{Name: "cwd", Usage: "working directory (default: current directory; with --host: the host's clone of this repository)"},
		&cli.StringFlag{Name: "host", Usage: "run the worker on this host (see swarm host); NAME@HOST in --name does the same"},
		&cli.StringFlag{Name: "repo", Usage: "with --host: the repository the host clones (default: this repository's origin)"},
		&cli.BoolFlag{Name: "ready-wait", Usage: "return only when the agent shows its input prompt (tmux)"},
		&cli.IntFlag{Name: "ready-timeout", Usage: "seconds --ready-wait waits before failing", Value: 120},
		&cli.StringFlag{Name: "ready-pattern", Usage: "regexp that marks the agent's input prompt, for agents swarm does not know"},
		&cli.StringFlag{Name: "heartbeat", Usage: "send the worker a message at this interval (4h, 30m; see swarm heartbeat)"},
		&cli.StringFlag{Name: "heartbeat-expire", Usage: "stop the heartbeat after this long (default: never)"},
		&cli.StringFlag{Name: "heartbeat-message", Usage: "what each heartbeat sends", Value: heartbeat.DefaultMessage},
	}, sandboxFlags()...)
}

func spawnCommand() *cli.Command {
	return &cli.Command{
		Name:      "spawn",
		Usage:     "start a named worker",
		ArgsUsage: "-- COMMAND [ARGS...]",
		Description: `Starts COMMAND as worker NAME. With --tmux it runs in a window of swarm's private tmux
server (see it with 'swarm attach NAME'); otherwise it runs detached in its own process group
with output in $SWARM_DIR/logs/NAME.stdout.log and NAME.stderr.log.

With --ralph, Claude Code, Qwen Code, Copilot CLI and Gemini CLI (their hooks), Codex (its
notify program) and opencode (a plugin of swarm's) tell the loop when a turn ends, fails on an
API error or waits for a permission (Gemini CLI ends its turn on an API error too, which its
screen names); every other agent (aider, ...) is read from its screen: its input prompt, its
working line, its dialogs, its API errors, inactivity. See 'swarm guide signals'.

Examples:
   swarm spawn --name w1 --tmux -- claude
   swarm spawn --name build --tag ci --env GOFLAGS=-race -- make test
   swarm spawn --name fix-42 --tmux --worktree --ready-wait -- codex`,
		Flags: append(spawnFlags(), ralphFlags()...),
		Action: func(c *cli.Context) error {
			if host, name, err := spawnHost(c); err != nil || host != "" {
				if err != nil {
					return err
				}
				return spawnOnHost(c, host, name)
			}
			if c.Bool("ralph") {
				return runRalphSpawn(c)
			}
			for _, f := range []string{"prompt-file", "max-iterations", "done-pattern", "prompt-mode", "foreground", "notify"} {
				if c.IsSet(f) {
					return fail("--%s needs --ralph", f)
				}
			}
			p, err := plainSpawnFromFlags(c)
			if err != nil {
				return err
			}
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			return runSpawn(e, p)
		},
	}
}

// spawnOptionsFromFlags checks the flags every spawn shares (plain or looping) and turns them
// into spawn options; the ready pattern comes back compiled (nil when not given).
func spawnOptionsFromFlags(c *cli.Context) (spawnOptions, *regexp.Regexp, error) {
	if !c.IsSet("name") {
		return spawnOptions{}, nil, fail(`Required flag "name" not set`)
	}
	name := c.String("name")
	if err := worker.ValidateName(name); err != nil {
		return spawnOptions{}, nil, err
	}
	envMap, err := parseEnvFlags(c.StringSlice("env"))
	if err != nil {
		return spawnOptions{}, nil, err
	}
	argv := c.Args().Slice()
	var sources []config.Source
	if len(argv) == 0 && !c.IsSet("chain") {
		if argv, sources, err = configuredCommand(c.String("cwd")); err != nil {
			return spawnOptions{}, nil, err
		}
	}
	var readyRE *regexp.Regexp
	if p := c.String("ready-pattern"); p != "" {
		if readyRE, err = regexp.Compile(p); err != nil {
			return spawnOptions{}, nil, fail("invalid --ready-pattern: %w", err)
		}
	}
	if c.Int("ready-timeout") <= 0 {
		return spawnOptions{}, nil, fail("--ready-timeout must be a positive number of seconds")
	}
	o := spawnOptions{SpawnOptions: worker.SpawnOptions{
		Name:        name,
		Tmux:        c.Bool("tmux"),
		Session:     c.String("session"),
		Worktree:    c.Bool("worktree"),
		Branch:      c.String("branch"),
		WorktreeDir: c.String("worktree-dir"),
		Tags:        c.StringSlice("tag"),
		Env:         envMap,
		Cwd:         c.String("cwd"),
		Argv:        argv,
	}, Config: sources}
	if o.Branch != "" && !o.Worktree {
		return spawnOptions{}, nil, fail("--branch needs --worktree")
	}
	if o.WorktreeDir != "" && !o.Worktree {
		return spawnOptions{}, nil, fail("--worktree-dir needs --worktree")
	}
	if o.Heartbeat, err = heartbeatFromFlags(c); err != nil {
		return spawnOptions{}, nil, err
	}
	if c.IsSet("chain") {
		return o, readyRE, nil // the steps' commands decide its sandbox (chainSandbox)
	}
	if err := o.decideSandbox(c, argv); err != nil {
		return spawnOptions{}, nil, err
	}
	return o, readyRE, nil
}

// configuredCommand is the agent command the config files name for a spawn in cwd (the
// current directory when ""), for a spawn given none, and the files it was looked for in.
func configuredCommand(cwd string) ([]string, []config.Source, error) {
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	cfg := config.Load(cwd)
	cmd, err := cfg.SpawnCommand()
	if err != nil {
		return nil, nil, fail("%w", err)
	}
	if src, ok := cfg.IgnoredNaming("[spawn] command"); ok && len(cmd) == 0 {
		return nil, nil, fail("no command provided (use -- command...): %s", src.Warning())
	}
	if len(cmd) == 0 {
		return nil, nil, fail("no command provided (use -- command..., or set command in the [spawn] table of %s or swarm.toml)", homeRelative(config.UserConfigPath()))
	}
	return cmd, cfg.Sources(), nil
}

// plainSpawn is `swarm spawn` without --ralph: the worker, and whether to wait until its
// agent is ready for input.
type plainSpawn struct {
	spawnOptions
	ReadyWait    bool
	ReadyTimeout time.Duration
	ReadyRE      *regexp.Regexp
}

func plainSpawnFromFlags(c *cli.Context) (plainSpawn, error) {
	o, readyRE, err := spawnOptionsFromFlags(c)
	if err != nil {
		return plainSpawn{}, err
	}
	p := plainSpawn{spawnOptions: o, ReadyWait: c.Bool("ready-wait"), ReadyRE: readyRE,
		ReadyTimeout: time.Duration(c.Int("ready-timeout")) * time.Second}
	if p.ReadyWait && !p.Tmux {
		return plainSpawn{}, fail("--ready-wait needs --tmux (it watches the agent's screen)")
	}
	if p.Heartbeat != nil && !p.Tmux {
		return plainSpawn{}, fail("--heartbeat needs --tmux (it types into the worker's window)")
	}
	return p, nil
}

// runSpawn starts a worker. With --ready-wait it is all or nothing: an agent that never gets
// ready is stopped and removed again, and the error says so. So is one whose spawn is
// interrupted (Ctrl-C, a closed terminal, a kill) before it was ready: nobody is left to wait
// for it, and a worker half-spawned is not what the user asked for.
func runSpawn(e *env, p plainSpawn) error {
	warnIgnored(e, p.Config)
	warnSandbox(e, p.SandboxNotes)
	var sigs chan os.Signal
	if p.ReadyWait {
		// Caught before anything is made, so that nothing is left when one comes early.
		sigs = make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		defer signal.Stop(sigs)
	}
	w, err := e.Spawn(p.SpawnOptions)
	if err != nil {
		return err
	}
	if p.ReadyWait {
		if err := waitReady(e, w, p.ReadyTimeout, p.ReadyRE, sigs); err != nil {
			return undoSpawn(e, w, err)
		}
	}
	printSpawned(e, "spawned", w)
	return startSpawnHeartbeat(e, w.Name, p.Heartbeat)
}

// undoSpawn stops a worker whose spawn failed after it started and removes all of it (window,
// processes, worktree, record); the error is why, with its exit code.
func undoSpawn(e *env, w *state.Worker, why error) error {
	_ = e.Stop(w, 2*time.Second)
	code, msg, _ := codeOf(why)
	if err := cleanWorker(e, w, worker.Everything); err != nil {
		return &exitError{code: code, msg: fmt.Sprintf("%s; stopping it failed too: %v", msg, err), cause: why}
	}
	return &exitError{code: code, msg: msg + "; the worker was stopped and removed", cause: why}
}

// signalCode is the shell's exit code for a program ended by sig: 128 + its number.
func signalCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return ExitError
}

// printSpawned says where a started worker runs: "spawned w1 (tmux: swarm:w1)".
func printSpawned(e *env, verb string, w *state.Worker) {
	if w.Tmux != nil {
		fmt.Fprintf(e.stdout, "%s %s (tmux: %s:%s)\n", verb, w.Name, w.Tmux.Session, w.Tmux.Window)
	} else {
		fmt.Fprintf(e.stdout, "%s %s (pid: %d)\n", verb, w.Name, w.PID)
	}
}

// homeRelative writes a path under the home directory as ~/..., as people write it.
func homeRelative(path string) string {
	home, err := os.UserHomeDir()
	if err == nil && home != "" && strings.HasPrefix(path, home+string(os.PathSeparator)) {
		return "~" + path[len(home):]
	}
	return path
}
