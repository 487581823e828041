// Package tmux is the only place that knows tmux syntax. Every call goes to a private server
// (tmux -L <socket>), commands are passed as argv (never a shell string), panes are addressed by
// pane ID, and text is delivered through named paste buffers so it arrives byte-exact.
package tmux

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// ErrNoServer means the private tmux server is not running (so no pane exists).
var ErrNoServer = errors.New("tmux server not running")

// ErrNotInstalled means there is no tmux binary: no pane can exist, and none can be made.
var ErrNotInstalled = errors.New("tmux is not installed (install it, e.g. apt-get install -y tmux)")

// ErrNoPane means the addressed pane does not exist.
var ErrNoPane = errors.New("no such tmux pane")

// Config is what swarm's private server starts with. remain-on-exit keeps a finished pane so
// its exit status and last screen can be read before swarm removes it.
const Config = `set -g remain-on-exit on
set -g history-limit 50000
set -g exit-empty on
set -g focus-events on
set -g allow-rename off
set -g automatic-rename off
`

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
}

// Client is the set of tmux operations swarm needs; tests substitute a fake.
type Client interface {
	Socket() string
	NewWindow(s Spec) (Pane, error)
	Respawn(paneID string, s Spec) (Pane, error)
	Panes() (map[string]Pane, error)
	Pane(paneID string) (Pane, error)
	Capture(paneID string, historyLines int) (string, error)
	Paste(paneID, text string, bracketed bool) error
	SendKeys(paneID string, keys ...string) error
	KillPane(paneID string) error
	ClearHistory(paneID string) error
	KillSessionIfEmpty(session string) error
	AttachArgs(paneID string) []string
}

// Exec runs the real tmux binary against a private server.
type Exec struct {
	SocketName string
	ConfigPath string // -f file; used only when the server starts
	Binary     string // default "tmux"
}

// Socket returns the -L socket name.
func (t *Exec) Socket() string { return t.SocketName }

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
		case "TMUX", "TMUX_PANE", "CLAUDECODE":
			continue
		}
		out = append(out, kv)
	}
	return out
}

func (t *Exec) base() []string {
	args := []string{"-L", t.SocketName}
	if t.ConfigPath != "" {
		args = append(args, "-f", t.ConfigPath)
	}
	return args
}

func (t *Exec) bin() string {
	if t.Binary != "" {
		return t.Binary
	}
	return "tmux"
}

// Command returns an exec.Cmd for a raw tmux invocation on the private server.
func (t *Exec) Command(args ...string) *exec.Cmd {
	cmd := exec.Command(t.bin(), append(t.base(), args...)...)
	cmd.Env = childEnv()
	// A fixed cwd keeps a server started here from pinning a directory the user may delete.
	cmd.Dir = "/"
	return cmd
}

func (t *Exec) run(stdin []byte, args ...string) (string, error) {
	cmd := t.Command(args...)
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	err := cmd.Run()
	if err != nil {
		msg := strings.TrimSpace(errb.String())
		if errors.Is(err, exec.ErrNotFound) {
			return "", ErrNotInstalled
		}
		// A server whose last session just closed answers "no current target" while it exits.
		if strings.Contains(msg, "no server running") || strings.Contains(msg, "error connecting to") ||
			strings.Contains(msg, "server exited") || strings.Contains(msg, "no current target") {
			return "", ErrNoServer
		}
		if strings.Contains(msg, "can't find pane") {
			return "", ErrNoPane
		}
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("tmux %s: %s", args[0], msg)
	}
	return out.String(), nil
}

// Fields are joined with "|", which tmux prints as is (it rewrites tabs) and which swarm never
// allows in session or window names.
const paneFormat = "#{pane_id}|#{pane_pid}|#{pane_dead}|#{pane_dead_status}|#{session_name}|#{window_index}|#{window_name}|#{pane_dead_signal}"

func parsePane(line string) (Pane, bool) {
	f := strings.Split(strings.TrimRight(line, "\r\n"), "|")
	if len(f) < 7 || !strings.HasPrefix(f[0], "%") {
		return Pane{}, false
	}
	p := Pane{ID: f[0], Dead: f[2] == "1", Session: f[4], WindowIdx: f[5], WindowName: f[6]}
	p.PID, _ = strconv.Atoi(f[1])
	if p.Dead && f[3] != "" {
		if n, err := strconv.Atoi(f[3]); err == nil {
			p.ExitStatus, p.HasStatus = n, true
		}
	}
	if p.Dead && !p.HasStatus && len(f) > 7 && f[7] != "" {
		// Killed by a signal: report it the way shells do.
		if n, err := strconv.Atoi(f[7]); err == nil {
			p.ExitStatus, p.HasStatus = 128+n, true
		}
	}
	return p, true
}

func specArgs(s Spec) []string {
	var args []string
	if s.Cwd != "" {
		args = append(args, "-c", s.Cwd)
	}
	for _, kv := range s.Env {
		args = append(args, "-e", kv)
	}
	return args
}

// NewWindow starts s.Argv in a new window of s.Session, creating the session when needed.
func (t *Exec) NewWindow(s Spec) (Pane, error) {
	if len(s.Argv) == 0 {
		return Pane{}, errors.New("no command to run")
	}
	w, h := s.Width, s.Height
	if w <= 0 {
		w = 200
	}
	if h <= 0 {
		h = 50
	}
	var lastErr error
	// Two spawns may race to create the same session; the loser retries with new-window.
	for attempt := 0; attempt < 4; attempt++ {
		var args []string
		if has, err := t.hasSession(s.Session); err != nil {
			return Pane{}, err
		} else if has {
			args = append([]string{"new-window", "-d", "-t", "=" + s.Session + ":", "-n", s.Window, "-P", "-F", paneFormat}, specArgs(s)...)
		} else {
			args = append([]string{"new-session", "-d", "-s", s.Session, "-n", s.Window,
				"-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "-P", "-F", paneFormat}, specArgs(s)...)
		}
		args = append(append(args, "--"), s.Argv...)
		out, err := t.run(nil, args...)
		if err == nil {
			p, ok := parsePane(out)
			if !ok {
				return Pane{}, fmt.Errorf("tmux: unexpected answer %q", out)
			}
			return p, nil
		}
		lastErr = err
		msg := err.Error()
		if strings.Contains(msg, "duplicate session") || strings.Contains(msg, "can't find session") || errors.Is(err, ErrNoServer) {
			continue
		}
		return Pane{}, err
	}
	return Pane{}, lastErr
}

func (t *Exec) hasSession(name string) (bool, error) {
	_, err := t.run(nil, "has-session", "-t", "="+name)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, ErrNotInstalled) {
		return false, err
	}
	if errors.Is(err, ErrNoServer) || strings.Contains(err.Error(), "can't find session") {
		return false, nil
	}
	return false, err
}

// Respawn starts s.Argv again in an existing (dead) pane, keeping its pane ID.
func (t *Exec) Respawn(paneID string, s Spec) (Pane, error) {
	args := append([]string{"respawn-pane", "-k", "-t", paneID}, specArgs(s)...)
	args = append(append(args, "--"), s.Argv...)
	if _, err := t.run(nil, args...); err != nil {
		return Pane{}, err
	}
	return t.Pane(paneID)
}

// settling reports a pane whose program has ended (its terminal closed) but whose exit status
// tmux has not collected yet; it is asked again shortly so the exit code is not lost.
func settling(p Pane) bool { return p.Dead && !p.HasStatus }

// Panes lists every pane on the server, keyed by pane ID; no server means no panes.
func (t *Exec) Panes() (map[string]Pane, error) {
	for i := 0; ; i++ {
		panes, err := t.listAll()
		if err != nil || i == 10 {
			return panes, err
		}
		wait := false
		for _, p := range panes {
			if settling(p) {
				wait = true
			}
		}
		if !wait {
			return panes, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (t *Exec) listAll() (map[string]Pane, error) {
	out, err := t.run(nil, "list-panes", "-a", "-F", paneFormat)
	// Process workers do not need tmux at all; without it there simply are no panes.
	if errors.Is(err, ErrNoServer) || errors.Is(err, ErrNotInstalled) {
		return map[string]Pane{}, nil
	}
	if err != nil {
		return nil, err
	}
	panes := map[string]Pane{}
	for _, line := range strings.Split(out, "\n") {
		if p, ok := parsePane(line); ok {
			panes[p.ID] = p
		}
	}
	return panes, nil
}

// Pane returns one pane, or ErrNoPane.
func (t *Exec) Pane(paneID string) (Pane, error) {
	for i := 0; ; i++ {
		p, err := t.pane(paneID)
		if err != nil || !settling(p) || i == 10 {
			return p, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (t *Exec) pane(paneID string) (Pane, error) {
	// display-message answers for some other pane when the target is wrong, so list and match.
	out, err := t.run(nil, "list-panes", "-t", paneID, "-F", paneFormat)
	if errors.Is(err, ErrNoServer) || errors.Is(err, ErrNotInstalled) {
		return Pane{}, ErrNoPane
	}
	if err != nil {
		if strings.Contains(err.Error(), "can't find") {
			return Pane{}, ErrNoPane
		}
		return Pane{}, err
	}
	for _, line := range strings.Split(out, "\n") {
		if p, ok := parsePane(line); ok && p.ID == paneID {
			return p, nil
		}
	}
	return Pane{}, ErrNoPane
}

// Capture returns the pane's text without escape sequences, wrapped lines joined. historyLines
// > 0 includes that many lines of scrollback above the visible screen; < 0 includes all of it.
func (t *Exec) Capture(paneID string, historyLines int) (string, error) {
	args := []string{"capture-pane", "-p", "-J", "-t", paneID}
	if historyLines < 0 {
		args = append(args, "-S", "-")
	} else if historyLines > 0 {
		args = append(args, "-S", strconv.Itoa(-historyLines))
	}
	return t.run(nil, args...)
}

// Paste delivers text exactly as given, through a uniquely named buffer, with line feeds kept as
// line feeds. bracketed wraps it in a bracketed paste when the program asked for one, so a TUI
// takes a multi-line text as one input instead of submitting at the first newline.
func (t *Exec) Paste(paneID, text string, bracketed bool) error {
	if text == "" {
		return nil
	}
	buf := "swarm-" + uuid.NewString()
	if _, err := t.run([]byte(text), "load-buffer", "-b", buf, "-"); err != nil {
		return err
	}
	args := []string{"paste-buffer", "-r", "-d", "-b", buf, "-t", paneID}
	if bracketed {
		args = append(args, "-p")
	}
	if _, err := t.run(nil, args...); err != nil {
		_, _ = t.run(nil, "delete-buffer", "-b", buf)
		return err
	}
	return nil
}

// SendKeys sends key names (Enter, C-c, Escape, ...), one tmux call per key: some programs
// read a burst of keys as one paste and drop or misread them.
func (t *Exec) SendKeys(paneID string, keys ...string) error {
	for _, k := range keys {
		if _, err := t.run(nil, "send-keys", "-t", paneID, k); err != nil {
			return err
		}
	}
	return nil
}

// KillPane removes the pane (and its window when it was the only pane).
func (t *Exec) KillPane(paneID string) error {
	_, err := t.run(nil, "kill-pane", "-t", paneID)
	if errors.Is(err, ErrNoServer) || errors.Is(err, ErrNoPane) {
		return nil
	}
	return err
}

// ClearHistory drops the pane's scrollback, so a new iteration starts on a clean slate.
func (t *Exec) ClearHistory(paneID string) error {
	_, err := t.run(nil, "clear-history", "-t", paneID)
	return err
}

// ReviveOnDeath makes tmux restart, after a one-second pause, the program of the pane's window
// whenever it dies: the server that hosts the agents also keeps their supervisors alive, with
// no other daemon. A program that ends on purpose removes its own pane first.
func (t *Exec) ReviveOnDeath(paneID string) error {
	_, err := t.run(nil, "set-hook", "-w", "-t", paneID, "pane-died", `run-shell -d 1 -C "respawn-pane -t #{hook_pane}"`)
	return err
}

// KillSessionIfEmpty removes a session that has no live panes left.
func (t *Exec) KillSessionIfEmpty(session string) error {
	out, err := t.run(nil, "list-panes", "-s", "-t", "="+session, "-F", "#{pane_dead}")
	if err != nil {
		return nil
	}
	for _, l := range strings.Fields(out) {
		if l != "1" {
			return nil
		}
	}
	_, err = t.run(nil, "kill-session", "-t", "="+session)
	if errors.Is(err, ErrNoServer) {
		return nil
	}
	return err
}

// AttachArgs is the tmux argv (without the binary) that attaches a terminal to the pane's window.
func (t *Exec) AttachArgs(paneID string) []string {
	return append(t.base(), "select-window", "-t", paneID, ";", "attach-session", "-t", paneID)
}

// Bin returns the tmux binary used.
func (t *Exec) Bin() string { return t.bin() }
