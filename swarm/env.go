package swarm

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/swarm/worker"
)

// env is what every command needs: the machine its workers run on (the opened state directory,
// the private tmux server, the process table) and the command's output streams.
type env struct {
	*worker.Machine
	stdout io.Writer
	stderr io.Writer
}

func (e *env) warnf(format string, args ...any) {
	fmt.Fprintf(e.stderr, "swarm: warning: "+format+"\n", args...)
}

// warnErr reports a recoverable problem (such as a corrupt state file set aside) in one line.
func (e *env) warnErr(err error) { e.warnf("%v", err) }

func stateRoot(c *cli.Context) (string, error) { return rootOrDefault(c.String("swarm-dir")) }

// rootOrDefault is the state directory dir, or ~/.swarm when dir is "".
func rootOrDefault(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fail("cannot find home directory; set SWARM_DIR")
	}
	return filepath.Join(home, ".swarm"), nil
}

func openEnv(c *cli.Context) (*env, error) {
	root, err := stateRoot(c)
	if err != nil {
		return nil, err
	}
	h, err := worker.OpenLocal(root, c.String("tmux-socket"), c.App.ErrWriter)
	if err != nil {
		return nil, fail("%w", err)
	}
	return &env{Machine: h, stdout: c.App.Writer, stderr: c.App.ErrWriter}, nil
}

// usageEnv is what a command's flags are read with before its state directory is opened:
// where to write warnings, and no state at all (a reader that reaches for it is a bug).
func usageEnv(c *cli.Context) *env {
	return &env{stdout: c.App.Writer, stderr: c.App.ErrWriter}
}

// withEnv runs a command: its options are checked first (a usage error never creates a state
// directory), then the environment is opened and handed to run.
func withEnv(c *cli.Context, check func() error, run func(*env) error) error {
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	e, err := openEnv(c)
	if err != nil {
		return err
	}
	return run(e)
}

// onServerOf is this environment pointed at the tmux server of the named worker, for the
// commands that reach a worker's loop (its monitor runs on the same server as its agent). A
// name without a record keeps the server this command was given.
func (e *env) onServerOf(name string) *env {
	on := *e
	on.Machine = e.Machine.OnServerOf(name)
	return &on
}
