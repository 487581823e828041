package worker

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
)

// Machine is one machine as workers see it: the state directory their records live in, swarm's
// private tmux server their windows open on, and the process table their programs run in.
type Machine struct {
	dir   *state.Dir
	tm    tmux.Client
	procs ProcessTable
	// warnings is where recoverable problems are told, one line each.
	warnings io.Writer
	// quietTmux: a tmux server that does not answer is shown by the caller (a dashboard's
	// frame) instead of warned about.
	quietTmux bool
}

// NewMachine is a Machine over an opened state directory, a tmux server and a process table, telling
// its warnings to warnings.
func NewMachine(dir *state.Dir, tm tmux.Client, procs ProcessTable, warnings io.Writer) *Machine {
	if warnings == nil {
		warnings = io.Discard
	}
	return &Machine{dir: dir, tm: tm, procs: procs, warnings: warnings}
}

// OpenLocal is this machine as a Machine: the state directory at root (created when missing),
// the tmux server named socket (SocketFor(root) when ""), its real processes. A corrupt record
// file is rebuilt from what still runs.
func OpenLocal(root, socket string, warnings io.Writer) (*Machine, error) {
	dir, err := state.Open(root)
	if err != nil {
		return nil, err
	}
	if socket == "" {
		socket = SocketFor(dir.Root)
	}
	if strings.ContainsAny(socket, "/ \t\n") {
		return nil, fmt.Errorf("invalid tmux socket name '%s' (no '/' or spaces)", socket)
	}
	conf, err := WriteTmuxConfig(dir.Root)
	if err != nil {
		return nil, err
	}
	tm := &tmux.Exec{SocketName: socket, ConfigPath: conf}
	dir.Rebuild = func() []*state.Worker { return Rebuild(dir, tm) }
	return NewMachine(dir, tm, OSProcesses{}, warnings), nil
}

// Dir is the state directory of this machine's workers.
func (m *Machine) Dir() *state.Dir { return m.dir }

// Tmux is the tmux server this machine opens new windows on.
func (m *Machine) Tmux() tmux.Client { return m.tm }

// Procs is this machine's process table.
func (m *Machine) Procs() ProcessTable { return m.procs }

// Quiet is this machine with a silent tmux server left for the caller to show (see LiveView's
// Trouble) rather than warned about.
func (m *Machine) Quiet() *Machine {
	q := *m
	q.quietTmux = true
	return &q
}

// WarningsTo is this machine telling its warnings to w instead (a daemon without a terminal: its
// own log).
func (m *Machine) WarningsTo(w io.Writer) *Machine {
	c := *m
	c.warnings = w
	return &c
}

// Warnf tells a recoverable problem in one line.
func (m *Machine) Warnf(format string, args ...any) {
	fmt.Fprintf(m.warnings, "swarm: warning: "+format+"\n", args...)
}

// warnErr reports a recoverable problem (such as a corrupt state file set aside) in one line.
func (m *Machine) warnErr(err error) { m.Warnf("%v", err) }

// SocketFor derives the private tmux server name from the state directory, so two state
// directories never share workers and the user's default server is never used.
func SocketFor(root string) string {
	sum := sha256.Sum256([]byte(root))
	return "swarm-" + hex.EncodeToString(sum[:])[:12]
}

// TmuxFor is the client for the tmux server a worker lives on. That is the server it was
// spawned on (its recorded socket), which need not be the one this machine was pointed at: a
// worker started with another socket stays on it for every later command. A record without a
// socket (written by the Python swarm) lives on the user's default tmux server.
func (m *Machine) TmuxFor(w *state.Worker) tmux.Client {
	if w == nil || w.Tmux == nil || w.Tmux.Socket == m.tm.Socket() {
		return m.tm
	}
	x, ok := m.tm.(*tmux.Exec)
	if !ok {
		return m.tm
	}
	c := *x
	c.SocketName = w.Tmux.Socket
	return &c
}

// OnServerOf is this machine pointed at the tmux server of the named worker, for what reaches a
// worker's loop (its monitor runs on the same server as its agent). A name without a record
// keeps the server this machine was given.
func (m *Machine) OnServerOf(name string) *Machine {
	ws, err := m.dir.LoadWorkers(nil)
	if err != nil {
		return m
	}
	w := ws.Get(name)
	if w == nil || w.Tmux == nil {
		return m
	}
	return m.onServer(w)
}

// onServer is this machine with w's tmux server as its own.
func (m *Machine) onServer(w *state.Worker) *Machine {
	on := *m
	on.tm = m.TmuxFor(w)
	return &on
}

// WriteTmuxConfig writes the configuration swarm's tmux server starts from into the state
// directory root, swarm's lines and the user's own file (see tmux.ConfigWith), unless it
// already holds exactly that: every command opens its machine, and a rewrite each time would
// change the file under anyone reading it.
func WriteTmuxConfig(root string) (string, error) {
	conf := filepath.Join(root, "tmux.conf")
	want := tmux.ConfigWith(config.UserTmuxConfigPath())
	if cur, err := os.ReadFile(conf); err == nil && string(cur) == want {
		return conf, nil
	}
	if err := state.WriteFileAtomic(conf, []byte(want), 0o600); err != nil {
		return "", fmt.Errorf("cannot write %s: %w", conf, err)
	}
	return conf, nil
}
