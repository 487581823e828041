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

// Host is one machine as workers see it: the state directory their records live in, swarm's
// private tmux server their windows open on, and the process table their programs run in.
type Host struct {
	dir   *state.Dir
	tm    tmux.Client
	procs ProcessTable
	// warnings is where recoverable problems are told, one line each.
	warnings io.Writer
	// quietTmux: a tmux server that does not answer is shown by the caller (a dashboard's
	// frame) instead of warned about.
	quietTmux bool
}

// NewHost is a Host over an opened state directory, a tmux server and a process table, telling
// its warnings to warnings.
func NewHost(dir *state.Dir, tm tmux.Client, procs ProcessTable, warnings io.Writer) *Host {
	if warnings == nil {
		warnings = io.Discard
	}
	return &Host{dir: dir, tm: tm, procs: procs, warnings: warnings}
}

// OpenLocal is this machine as a Host: the state directory at root (created when missing),
// the tmux server named socket (SocketFor(root) when ""), its real processes. A corrupt record
// file is rebuilt from what still runs.
func OpenLocal(root, socket string, warnings io.Writer) (*Host, error) {
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
	return NewHost(dir, tm, OSProcesses{}, warnings), nil
}

// Dir is the state directory of this host's workers.
func (h *Host) Dir() *state.Dir { return h.dir }

// Tmux is the tmux server this host opens new windows on.
func (h *Host) Tmux() tmux.Client { return h.tm }

// Procs is this host's process table.
func (h *Host) Procs() ProcessTable { return h.procs }

// Quiet is this host with a silent tmux server left for the caller to show (see LiveView's
// Trouble) rather than warned about.
func (h *Host) Quiet() *Host {
	q := *h
	q.quietTmux = true
	return &q
}

// WarningsTo is this host telling its warnings to w instead (a daemon without a terminal: its
// own log).
func (h *Host) WarningsTo(w io.Writer) *Host {
	c := *h
	c.warnings = w
	return &c
}

// Warnf tells a recoverable problem in one line.
func (h *Host) Warnf(format string, args ...any) {
	fmt.Fprintf(h.warnings, "swarm: warning: "+format+"\n", args...)
}

// warnErr reports a recoverable problem (such as a corrupt state file set aside) in one line.
func (h *Host) warnErr(err error) { h.Warnf("%v", err) }

// SocketFor derives the private tmux server name from the state directory, so two state
// directories never share workers and the user's default server is never used.
func SocketFor(root string) string {
	sum := sha256.Sum256([]byte(root))
	return "swarm-" + hex.EncodeToString(sum[:])[:12]
}

// TmuxFor is the client for the tmux server a worker lives on. That is the server it was
// spawned on (its recorded socket), which need not be the one this host was pointed at: a
// worker started with another socket stays on it for every later command. A record without a
// socket (written by the Python swarm) lives on the user's default tmux server.
func (h *Host) TmuxFor(w *state.Worker) tmux.Client {
	if w == nil || w.Tmux == nil || w.Tmux.Socket == h.tm.Socket() {
		return h.tm
	}
	x, ok := h.tm.(*tmux.Exec)
	if !ok {
		return h.tm
	}
	c := *x
	c.SocketName = w.Tmux.Socket
	return &c
}

// OnServerOf is this host pointed at the tmux server of the named worker, for what reaches a
// worker's loop (its monitor runs on the same server as its agent). A name without a record
// keeps the server this host was given.
func (h *Host) OnServerOf(name string) *Host {
	ws, err := h.dir.LoadWorkers(nil)
	if err != nil {
		return h
	}
	w := ws.Get(name)
	if w == nil || w.Tmux == nil {
		return h
	}
	return h.onServer(w)
}

// onServer is this host with w's tmux server as its own.
func (h *Host) onServer(w *state.Worker) *Host {
	on := *h
	on.tm = h.TmuxFor(w)
	return &on
}

// WriteTmuxConfig writes the configuration swarm's tmux server starts from into the state
// directory root, swarm's lines and the user's own file (see tmux.ConfigWith), unless it
// already holds exactly that: every command opens its host, and a rewrite each time would
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
