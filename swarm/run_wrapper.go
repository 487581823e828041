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
			argv := c.Args().Slice()
			if len(argv) == 0 {
				return fail("no command")
			}
			sigs := make(chan os.Signal, 8)
			// Caught (not ignored) so the program itself still gets default signal handling.
			signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
			env, err := wrapperEnv(c.String("env-file"), c.StringSlice("env"))
			if err != nil {
				fmt.Fprintf(os.Stderr, "swarm: error: %v\n", err)
				_ = state.WriteFileAtomic(c.String("exit-file"), []byte("126\n"+err.Error()+"\n"), 0o600)
				return exitCode(126)
			}
			cmd.Env = env
			if p := c.String("stdin"); p != "" {
				f, err := os.Open(p)
				if err != nil {
					fmt.Fprintf(os.Stderr, "swarm: error: %v\n", err)
					_ = state.WriteFileAtomic(c.String("exit-file"), []byte("127\n"), 0o600)
					return exitCode(127)
				}
				defer f.Close()
				cmd.Stdin = f
			}
			code := 0
			reason := ""
			if err := cmd.Run(); err != nil {
				var ee *exec.ExitError
				switch {
				case errors.As(err, &ee):
					if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
						code = 128 + int(ws.Signal())
					} else {
						code = ee.ExitCode()
					}
				default:
					code, reason = startFailure(argv[0], err)
					fmt.Fprintf(os.Stderr, "swarm: error: %s\n", reason)
				}
			}
			record := strconv.Itoa(code) + "\n"
			if reason != "" {
				// The second line names why the program could not start, for the loop's report.
				record += reason + "\n"
			}
			_ = state.WriteFileAtomic(c.String("exit-file"), []byte(record), 0o600)
			return exitCode(code)
		},
	}
}

// wrapperEnv is the program's environment: the worker's saved one (or the wrapper's own when
// there is none) plus the extra values.
func wrapperEnv(file string, extra []string) ([]string, error) {
	env := os.Environ()
	if file != "" {
		env = nil
		if err := state.ReadJSON(file, &env); err != nil {
			return nil, fmt.Errorf("cannot read the worker's environment %s: %v", file, err)
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
