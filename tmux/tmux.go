package tmux

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// ErrNoServer means the private tmux server is not running (so no pane exists).
var ErrNoServer = errors.New("tmux server not running")

// ErrNotInstalled means there is no tmux binary: no pane can exist, and none can be made.
var ErrNotInstalled = errors.New("tmux is not installed (install it, e.g. apt-get install -y tmux)")

// ErrNoPane means the addressed pane does not exist.
var ErrNoPane = errors.New("no such tmux pane")

// Config is what swarm's private server starts with. remain-on-exit keeps a finished pane so
// its exit status and last screen can be read before swarm removes it. The status line is
// drawn when something changes, not every 15 s: the Regent's control client counts as an
// attached client, so the timer would wake the server four times a minute for as long as any
// loop runs, idle or not; its clock, which only that timer keeps current, is left out.
const Config = `set -g remain-on-exit on
set -g history-limit 50000
set -g exit-empty on
set -g focus-events on
set -g allow-rename off
set -g automatic-rename off
set -g status-interval 0
set -g status-right "#{=21:pane_title}"
`

// relied is what swarm cannot work without, set again after the user's file: finished panes
// stay (exit codes, last screens), scrollback is deep enough to capture, sessions and the
// server outlive their clients, windows keep the workers' names, and no timer wakes the server.
const relied = `set -g remain-on-exit on
set -g history-limit 50000
set -g exit-empty on
set -g exit-unattached off
set -g destroy-unattached off
set -g allow-rename off
set -g automatic-rename off
set -g status-interval 0
`

// ConfigWith is Config followed by the user's own file (prefix, keys, colours...), read when
// the server starts if it exists then, and by the options swarm relies on, so the user's
// file cannot undo them. An empty userFile is Config alone.
func ConfigWith(userFile string) string {
	if userFile == "" {
		return Config
	}
	return Config + "source-file -q " + quote(userFile) + "\n" + relied
}

// quote writes s as one word of tmux's configuration language (in double quotes, where only
// a backslash, a double quote and a dollar sign are special).
func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`)
	return `"` + r.Replace(s) + `"`
}

// Pane is a live or dead pane as tmux reports it.
type Pane struct {
	ID         string
	PID        int
	Dead       bool
	ExitStatus int // valid when Dead and HasStatus
	HasStatus  bool
	Session    string
	WindowIdx  string
	WindowName string
	// SwarmID is the identity of the worker the pane was started for (its @swarm_id option):
	// pane IDs start again at %0 when the server restarts, so an ID alone names no worker.
	SwarmID string
	// Activity is when the pane's window last printed something (to the second).
	Activity time.Time
}

// Spec describes a program to start in a new window or in a respawned pane.
type Spec struct {
	Session string
	Window  string
	Cwd     string
	Env     []string // KEY=VALUE, passed with -e
	Argv    []string
	Width   int
	Height  int
	// ID, when set, is stored on the pane as its @swarm_id option (see Pane.SwarmID).
	ID string
	// ClearHistory drops the pane's scrollback before a respawn, so the new program starts
	// on a clean slate.
	ClearHistory bool
}

// Client is the set of tmux operations swarm needs; tests substitute a fake.
type Client interface {
	Socket() string
	NewWindow(s Spec) (Pane, error)
	Respawn(paneID string, s Spec) (Pane, error)
	Panes() (map[string]Pane, error)
	Pane(paneID string) (Pane, error)
	// PaneNow is one look at a pane: a program that just ended may show as dead without its
	// exit status yet (Pane waits a moment for it), for callers that do not need the status
	// or have it from elsewhere.
	PaneNow(paneID string) (Pane, error)
	Capture(paneID string, historyLines int) (string, error)
	Paste(paneID, text string, bracketed bool) error
	// StageBuffer, PasteBuffer: Paste in two steps, so that a caller that records the
	// buffer's name in between can tell afterwards whether the paste happened (HasBuffer).
	StageBuffer(name, text string) error
	PasteBuffer(paneID, name string, bracketed bool) error
	HasBuffer(name string) (bool, error)
	DeleteBuffer(name string)
	SendKeys(paneID string, keys ...string) error
	KillPane(paneID string) error
	KillSessionIfEmpty(session string) error
	AttachArgs(paneID string) []string
	// ReviveOnDeath makes the server restart the pane's program whenever it dies.
	ReviveOnDeath(paneID string) error
	// KillServer ends the server and everything on it.
	KillServer() error
	// InsideServer reports whether this process runs in a client of the server.
	InsideServer() bool
	// SwitchClient shows the pane in the client this process runs in.
	SwitchClient(paneID string) error
	// Bin is the tmux program that attaching runs.
	Bin() string
	// Message shows text on every client attached to the server, and says how many there were.
	Message(text string) (clients int, err error)
}

// childEnv is the environment for tmux clients (and hence a server they start): it never
// carries the caller's TMUX (which would point at the user's own server) nor CLAUDECODE (which
// makes a nested Claude Code refuse to start).
func childEnv() []string {
	return FilterEnv(os.Environ())
}

// FilterEnv drops variables that must not leak from the caller into workers.
func FilterEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		// A worker's own identity never reaches another process swarm starts (a director
		// agent runs swarm from inside a worker): processes are found and ended by it.
		case "TMUX", "TMUX_PANE", "CLAUDECODE", "SWARM_WORKER_ID", "SWARM_WORKER", "SWARM_ITERATION", "SWARM_DONE_FILE":
			continue
		}
		out = append(out, kv)
	}
	return out
}

// ErrNotAnswering means the server did not answer a call in time: it is stopped, wedged or
// far too loaded. Its panes may be alive; nothing about them can be learnt from it now.
var ErrNotAnswering = errors.New("tmux server is not answering")

// NotAnsweringError is ErrNotAnswering naming the server, for the user to find it.
type NotAnsweringError struct{ Socket string }

func (e *NotAnsweringError) Error() string {
	if e.Socket == "" {
		return "the default tmux server is not answering"
	}
	return fmt.Sprintf("tmux server (socket %s) is not answering", e.Socket)
}

// Is makes errors.Is(err, ErrNotAnswering) hold.
func (e *NotAnsweringError) Is(target error) bool { return target == ErrNotAnswering }

// defaultCallTimeout is far more than any call takes on a loaded machine (fifty loops
// restarting at once on two cores answer within two seconds) and little enough that a command
// facing a stopped server still answers soon.
const defaultCallTimeout = 5 * time.Second

// CallTimeout is how long one tmux call may take: SWARM_TMUX_TIMEOUT (a Go duration, "2s")
// when set and valid, else five seconds.
func CallTimeout() time.Duration {
	if d, set := setCallTimeout(); set {
		return d
	}
	return defaultCallTimeout
}

// setCallTimeout is SWARM_TMUX_TIMEOUT, and whether it is set to a valid duration: the one
// reading of it, for the calls by process and those through a control client alike.
func setCallTimeout() (time.Duration, bool) {
	d, err := time.ParseDuration(os.Getenv("SWARM_TMUX_TIMEOUT"))
	return d, err == nil && d > 0
}
