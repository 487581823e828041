package swarm

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/state"
)

// runWrapperCommand is the parent of a process-mode worker: it runs the program in the same
// process group, outlives signals meant for the group long enough to record the exit code, and
// exits with the program's code.
func runWrapperCommand() *cli.Command {
	return &cli.Command{
		Name:   "__run",
		Hidden: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "exit-file", Required: true},
			&cli.StringFlag{Name: "stdin", Usage: "file to give the program on its standard input"},
			// The worker's environment comes from a private file, never from a command line
			// (where every local user could read it in ps); --env adds values that are no
			// secret (the loop's iteration number).
			&cli.StringFlag{Name: "env-file", Usage: "JSON list of KEY=VALUE: the program's whole environment"},
			&cli.StringSliceFlag{Name: "env", Usage: "KEY=VALUE added to the environment"},
		},
		Action: func(c *cli.Context) error {
			o := wrapperOptions{Argv: c.Args().Slice(), ExitFile: c.String("exit-file"), Stdin: c.String("stdin"),
				EnvFile: c.String("env-file"), Env: c.StringSlice("env")}
			return exitCode(runWrapped(o))
		},
	}
}

// wrapperOptions are the arguments of `swarm __run`.
type wrapperOptions struct {
	Argv     []string
	ExitFile string
	Stdin    string
	EnvFile  string
	Env      []string
}

// runWrapped runs the program, records how it ended in the exit file (its code, and on a
// second line why it could not start) and returns the code.
func runWrapped(o wrapperOptions) int {
	if len(o.Argv) == 0 {
		fmt.Fprintln(os.Stderr, "swarm: error: no command")
		return ExitError
	}
	sigs := make(chan os.Signal, 8)
	// Caught (not ignored) so the program itself still gets default signal handling.
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	cmd := exec.Command(o.Argv[0], o.Argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	env, err := wrapperEnv(o.EnvFile, o.Env)
	if err != nil {
		return recordExit(o.ExitFile, 126, err.Error())
	}
	cmd.Env = env
	if o.Stdin != "" {
		f, err := os.Open(o.Stdin)
		if err != nil {
			return recordExit(o.ExitFile, 127, err.Error())
		}
		defer f.Close()
		cmd.Stdin = f
	}
	if err := cmd.Start(); err != nil {
		code, reason := startFailure(o.Argv[0], err)
		return recordExit(o.ExitFile, code, reason)
	}
	go passHangup(sigs, cmd.Process)
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return recordExit(o.ExitFile, 0, "")
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return recordExit(o.ExitFile, 128+int(ws.Signal()), "")
		}
		return recordExit(o.ExitFile, ee.ExitCode(), "")
	}
	return recordExit(o.ExitFile, ExitError, fmt.Sprintf("waiting for %s: %v", o.Argv[0], err))
}

// passHangup hands a hangup on to the program. The wrapper stays to record how the program
// ended, but when its window, session or tmux server is closed only the wrapper (the leader of
// the pane's session) is told: a program that never touches its terminal would run on without
// a window.
func passHangup(sigs <-chan os.Signal, p *os.Process) {
	for s := range sigs {
		if s == syscall.SIGHUP {
			_ = p.Signal(syscall.SIGHUP)
		}
	}
}

// recordExit writes the exit file and returns code; a reason is also said on stderr, where
// the pane shows it.
func recordExit(exitFile string, code int, reason string) int {
	record := strconv.Itoa(code) + "\n"
	if reason != "" {
		fmt.Fprintf(os.Stderr, "swarm: error: %s\n", reason)
		// The second line names why the program could not start, for the loop's report.
		record += reason + "\n"
	}
	_ = state.WriteFileAtomic(exitFile, []byte(record), 0o600)
	return code
}

// wrapperEnv is the program's environment: the worker's saved one (or the wrapper's own when
// there is none) plus the extra values.
func wrapperEnv(file string, extra []string) ([]string, error) {
	env := os.Environ()
	if file != "" {
		env = nil
		if err := state.ReadJSON(file, &env); err != nil {
			return nil, fmt.Errorf("cannot read the worker's environment %s: %w", file, err)
		}
	}
	return append(env, extra...), nil
}

// startFailure maps a failure to start a program to the shell's exit codes (127 not found, 126
// cannot execute) and a sentence naming the problem.
func startFailure(prog string, err error) (int, string) {
	switch {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, os.ErrNotExist):
		return 127, "executable not found: " + prog
	case errors.Is(err, os.ErrPermission):
		return 126, "permission denied: " + prog
	}
	return 126, fmt.Sprintf("cannot start %s: %v", prog, err)
}
