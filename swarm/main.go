// Package swarm is the command-line interface: one file per command, plus the worker lifecycle
// (spawn, kill, reconcile) those commands share.
package swarm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
	"github.com/urfave/cli/v2"
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

State lives in $SWARM_DIR (default ~/.swarm). Exit codes: 0 success, 1 error, 2 no such worker.

Examples:
   swarm spawn --name w1 --tmux -- claude
   swarm ls
   swarm send w1 "run the tests and fix what fails"
   swarm peek w1
   swarm kill w1`,
		Writer:               stdout,
		ErrWriter:            stderr,
		EnableBashCompletion: true,
		HideHelpCommand:      true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "swarm-dir", Usage: "state directory", EnvVars: []string{"SWARM_DIR"}, DefaultText: "~/.swarm"},
			&cli.StringFlag{Name: "tmux-socket", Usage: "name of swarm's private tmux server (tmux -L)", EnvVars: []string{"SWARM_TMUX_SOCKET"}, DefaultText: "derived from the state directory"},
		},
		Commands: []*cli.Command{
			spawnCommand(),
			lsCommand(),
			statusCommand(),
			peekCommand(),
			sendCommand(),
			interruptCommand(),
			eofCommand(),
			attachCommand(),
			logsCommand(),
			killCommand(),
			waitCommand(),
			cleanCommand(),
			respawnCommand(),
			ralphCommand(),
			demoCommand(),
			demoAgentCommand(),
			runWrapperCommand(),
		},
		OnUsageError: func(c *cli.Context, err error, isSubcommand bool) error {
			return fail("%v (see 'swarm %s --help')", err, c.Command.FullName())
		},
	}
	for _, cmd := range app.Commands {
		setUsageErrors(cmd)
	}
	return app
}

func setUsageErrors(cmd *cli.Command) {
	cmd.OnUsageError = func(c *cli.Context, err error, isSubcommand bool) error {
		return fail("%v (see 'swarm %s --help')", err, c.Command.FullName())
	}
	// Without this every command gets a hidden "help" subcommand (alias "h"), and a worker
	// named h or help could not be addressed: `swarm status h` would print help instead.
	cmd.HideHelpCommand = true
	for _, sub := range cmd.Subcommands {
		setUsageErrors(sub)
	}
}

// env is what every command needs: the opened state directory and the private tmux server.
type env struct {
	dir    *state.Dir
	tm     tmux.Client
	stdout io.Writer
	stderr io.Writer
}

func (e *env) warnf(format string, args ...any) {
	fmt.Fprintf(e.stderr, "swarm: warning: "+format+"\n", args...)
}

// warnErr reports a recoverable problem (such as a corrupt state file set aside) in one line.
func (e *env) warnErr(err error) { e.warnf("%v", err) }

func stateRoot(c *cli.Context) (string, error) {
	if d := c.String("swarm-dir"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fail("cannot find home directory; set SWARM_DIR")
	}
	return filepath.Join(home, ".swarm"), nil
}

// SocketFor derives the private tmux server name from the state directory, so two state
// directories never share workers and the user's default server is never used.
func SocketFor(root string) string {
	sum := sha256.Sum256([]byte(root))
	return "swarm-" + hex.EncodeToString(sum[:])[:12]
}

func openEnv(c *cli.Context) (*env, error) {
	root, err := stateRoot(c)
	if err != nil {
		return nil, err
	}
	dir, err := state.Open(root)
	if err != nil {
		return nil, fail("%v", err)
	}
	socket := c.String("tmux-socket")
	if socket == "" {
		socket = SocketFor(dir.Root)
	}
	if strings.ContainsAny(socket, "/ \t\n") {
		return nil, fail("invalid tmux socket name '%s' (no '/' or spaces)", socket)
	}
	conf := filepath.Join(dir.Root, "tmux.conf")
	if cur, err := os.ReadFile(conf); err != nil || string(cur) != tmux.Config {
		if err := state.WriteFileAtomic(conf, []byte(tmux.Config), 0o600); err != nil {
			return nil, fail("cannot write %s: %v", conf, err)
		}
	}
	app := c.App
	return &env{
		dir:    dir,
		tm:     &tmux.Exec{SocketName: socket, ConfigPath: conf},
		stdout: app.Writer,
		stderr: app.ErrWriter,
	}, nil
}

// reorderArgs lets flags follow positional arguments (`swarm peek w1 -n 5`), which urfave/cli
// does not do on its own. Everything after a literal "--" is left untouched.
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	i := 1
	// Global flags before the command name.
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "--" {
		out = append(out, args[i])
		if takesValue(app.Flags, args[i]) && !strings.Contains(args[i], "=") && i+1 < len(args) {
			i++
			out = append(out, args[i])
		}
		i++
	}
	cmds := app.Commands
	var cmd *cli.Command
	for i < len(args) {
		next := findCommand(cmds, args[i])
		if next == nil {
			break
		}
		cmd = next
		out = append(out, args[i])
		i++
		cmds = cmd.Subcommands
		if len(cmds) == 0 {
			break
		}
	}
	if cmd == nil || cmd.SkipFlagParsing {
		return append(out, args[i:]...)
	}
	var flags, positional []string
	for i < len(args) {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i:]...)
			break
		}
		if len(positional) > 0 && commandTakesArgv(cmd) {
			// Past the first word of a program to run, every word belongs to that program.
			positional = append(positional, args[i:]...)
			break
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			flags = append(flags, a)
			if takesValue(cmd.Flags, a) && !strings.Contains(a, "=") && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		} else {
			positional = append(positional, a)
		}
		i++
	}
	out = append(out, flags...)
	if len(positional) > 0 && positional[0] != "--" {
		// Keep urfave/cli from reading a positional that starts with "-" as a flag.
		out = append(out, "--")
	}
	return append(out, positional...)
}

// commandTakesArgv marks commands whose positional arguments are a program and its arguments.
func commandTakesArgv(cmd *cli.Command) bool {
	return cmd.Name == "spawn" || cmd.Name == "__run"
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.Name == name {
			return c
		}
		for _, a := range c.Aliases {
			if a == name {
				return c
			}
		}
	}
	return nil
}

func takesValue(flags []cli.Flag, arg string) bool {
	name := strings.TrimLeft(arg, "-")
	if k, _, ok := strings.Cut(name, "="); ok {
		name = k
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n != name {
				continue
			}
			if bf, ok := f.(*cli.BoolFlag); ok && bf != nil {
				return false
			}
			return true
		}
	}
	return false
}

// formatFlag returns the --format value after checking it is one of allowed.
func formatFlag(c *cli.Context, allowed ...string) (string, error) {
	f := c.String("format")
	for _, a := range allowed {
		if f == a {
			return f, nil
		}
	}
	want := strings.Join(allowed[:len(allowed)-1], ", ") + " or " + allowed[len(allowed)-1]
	return "", fail("invalid --format '%s' (expected %s)", f, want)
}

// printJSON writes v as indented JSON, the shape every --format json output has.
func printJSON(e *env, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, string(data))
	return nil
}
