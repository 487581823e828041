package swarm

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
)

// env is what every command needs: the opened state directory and the private tmux server.
type env struct {
	dir    *state.Dir
	tm     tmux.Client
	procs  processTable
	stdout io.Writer
	stderr io.Writer
	// quietTmux: a tmux server that does not answer is shown by the caller (the dashboard's
	// frame), not warned about on stderr.
	quietTmux bool
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
		return nil, fail("%w", err)
	}
	socket := c.String("tmux-socket")
	if socket == "" {
		socket = SocketFor(dir.Root)
	}
	if strings.ContainsAny(socket, "/ \t\n") {
		return nil, fail("invalid tmux socket name '%s' (no '/' or spaces)", socket)
	}
	conf, err := writeTmuxConfig(dir.Root)
	if err != nil {
		return nil, err
	}
	app := c.App
	tm := &tmux.Exec{SocketName: socket, ConfigPath: conf}
	dir.Rebuild = func() []*state.Worker { return rebuildWorkers(dir, tm) }
	return &env{
		dir:    dir,
		tm:     tm,
		procs:  osProcesses{},
		stdout: app.Writer,
		stderr: app.ErrWriter,
	}, nil
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

// tmuxFor is the client for the tmux server a worker lives on. That is the server it was
// spawned on (its recorded socket), which need not be the one this command was pointed at: a
// worker started with --tmux-socket X stays on X for every later command. A record without a
// socket (written by the Python swarm) lives on the user's default tmux server.
func (e *env) tmuxFor(w *state.Worker) tmux.Client {
	if w == nil || w.Tmux == nil || w.Tmux.Socket == e.tm.Socket() {
		return e.tm
	}
	x, ok := e.tm.(*tmux.Exec)
	if !ok {
		return e.tm
	}
	c := *x
	c.SocketName = w.Tmux.Socket
	return &c
}

// onServerOf is this environment pointed at the tmux server of the named worker, for the
// commands that reach a worker's loop (its monitor runs on the same server as its agent). A
// name without a record keeps the server this command was given.
func (e *env) onServerOf(name string) *env {
	ws, err := e.dir.LoadWorkers(nil)
	if err != nil {
		return e
	}
	w := ws.Get(name)
	if w == nil || w.Tmux == nil {
		return e
	}
	on := *e
	on.tm = e.tmuxFor(w)
	return &on
}

// writeTmuxConfig writes the configuration swarm's tmux server starts from into the state
// directory, swarm's lines and the user's own file (see tmux.ConfigWith), unless it already
// holds exactly that: every command opens the environment, and a rewrite each time would
// change the file under anyone reading it.
func writeTmuxConfig(root string) (string, error) {
	conf := filepath.Join(root, "tmux.conf")
	want := tmux.ConfigWith(config.UserTmuxConfigPath())
	if cur, err := os.ReadFile(conf); err == nil && string(cur) == want {
		return conf, nil
	}
	if err := state.WriteFileAtomic(conf, []byte(want), 0o600); err != nil {
		return "", fail("cannot write %s: %w", conf, err)
	}
	return conf, nil
}
