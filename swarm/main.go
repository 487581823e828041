package swarm

import (
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/swarm/demoagent"
)

// Version is stamped at build time with -ldflags "-X github.com/swarm-dev/swarm/swarm.Version=...".
var Version = "dev"

// Main runs the swarm command line and returns the process exit code. It never calls os.Exit
// itself, so deferred cleanups (lock releases) always run.
func Main() int {
	return Run(os.Args, os.Stdout, os.Stderr)
}

// Run is Main with explicit arguments and output streams.
func Run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 1 && args[1] == "demo-agent" {
		// A loop starts its demo agent once per iteration: it skips building the whole
		// command line, a sixth of its start.
		return demoagent.Main(args[2:])
	}
	code := 0
	app := newApp(stdout, stderr)
	app.ExitErrHandler = func(c *cli.Context, err error) {
		if err == nil {
			return
		}
		n, msg, silent := codeOf(err)
		if !silent && msg != "" {
			fmt.Fprintf(stderr, "swarm: error: %s\n", msg)
		}
		code = n
	}
	if err := unknownCommand(app, args); err != nil {
		_, msg, _ := codeOf(err)
		fmt.Fprintf(stderr, "swarm: error: %s\n", msg)
		return ExitError
	}
	if line, remote, err := routeOf(app, args); err != nil || remote {
		if err != nil {
			_, msg, _ := codeOf(err)
			fmt.Fprintf(stderr, "swarm: error: %s\n", msg)
			return ExitError
		}
		return runRouted(line, stdout, stderr)
	}
	if err := app.Run(reorderArgs(app, args)); err != nil {
		// Errors from flag parsing reach here without ExitErrHandler.
		if code == 0 {
			n, msg, silent := codeOf(err)
			if !silent {
				fmt.Fprintf(stderr, "swarm: error: %s\n", msg)
			}
			code = n
		}
	}
	return code
}

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:    "swarm",
		Usage:   "run AI coding agents as named workers in tmux, and keep them looping unattended",
		Version: Version,
		Description: `swarm starts agents (Claude Code, Codex, Gemini CLI, aider, opencode or any command) as named
workers on a private tmux server (or as detached processes), lets you watch and drive them
from any terminal or script, and can keep one working through a ralph loop.

State lives in $SWARM_DIR (default ~/.swarm). Exit codes: 0 success, 1 error (usage errors
too), 2 no such worker; a loop run in the foreground also 3 (stagnated) and 130 (paused).

Examples:
   swarm spawn --name w1 --tmux -- claude
   swarm ls
   swarm send w1 "run the tests and fix what fails"
   swarm peek w1
   swarm kill w1

The manual is built in: swarm guide lists its topics, swarm guide TOPIC shows one.`,
		Writer:               stdout,
		ErrWriter:            stderr,
		EnableBashCompletion: true,
		// A repeated flag's value is taken whole: a comma belongs to a regexp (--done-pattern
		// 'a{1,3}') or a value (--env LIST=a,b), it does not split it.
		DisableSliceFlagSeparator: true,
		HideHelpCommand:           true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "swarm-dir", Usage: "state directory", EnvVars: []string{"SWARM_DIR"}, DefaultText: "~/.swarm"},
			&cli.StringFlag{Name: "tmux-socket", Usage: "name of swarm's private tmux server (tmux -L)", EnvVars: []string{"SWARM_TMUX_SOCKET"}, DefaultText: "derived from the state directory"},
		},
		Commands: commands(),
		OnUsageError: func(c *cli.Context, err error, isSubcommand bool) error {
			return fail("%w (see 'swarm --help')", err)
		},
		// Bare `swarm` is an incomplete command line: its help, and exit 1.
		Action: func(c *cli.Context) error {
			_ = cli.ShowAppHelp(c)
			return exitCode(ExitError)
		},
	}
	for _, cmd := range app.Commands {
		setUsageErrors(cmd, "swarm")
	}
	return app
}

// setUsageErrors makes every command's usage errors name that command's help by its full path
// (`swarm ralph ls --help`), and a command group given alone fail with its help.
func setUsageErrors(cmd *cli.Command, parent string) {
	path := parent + " " + cmd.Name
	cmd.OnUsageError = func(c *cli.Context, err error, isSubcommand bool) error {
		return fail("%w (see '%s --help')", err, path)
	}
	if len(cmd.Subcommands) > 0 && cmd.Action == nil {
		cmd.Action = needsSubcommand
	}
	// Without this every command gets a hidden "help" subcommand (alias "h"), and a worker
	// named h or help could not be addressed: `swarm status h` would print help instead.
	cmd.HideHelpCommand = true
	for _, sub := range cmd.Subcommands {
		setUsageErrors(sub, path)
	}
}

// commands are swarm's commands, in the order its help lists them.
func commands() []*cli.Command {
	return []*cli.Command{
		spawnCommand(),
		lsCommand(),
		dashboardCommand(),
		statusCommand(),
		peekCommand(),
		sendCommand(),
		answerCommand(),
		interruptCommand(),
		eofCommand(),
		attachCommand(),
		logsCommand(),
		killCommand(),
		waitCommand(),
		eventsCommand(),
		cleanCommand(),
		landCommand(),
		reportCommand(),
		serveCommand(),
		respawnCommand(),
		hostCommand(),
		initCommand(),
		heartbeatCommand(),
		ralphCommand(),
		inboxCommand(),
		agentCommand(),
		queryCommand(),
		demoCommand(),
		demoAgentCommand(),
		regentCommand(),
		allowCommand(),
		sandboxCommand(),
		completionCommand(),
		guideCommand(),
		completeCommand(),
		runWrapperCommand(),
		agentEventCommand(),
		sandboxLaunchCommand(),
		sandboxInsideCommand(),
	}
}
