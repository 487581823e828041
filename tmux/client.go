package tmux

import (
	"errors"
	"os"
	"strings"
)

// AttachArgs is the tmux argv (without the binary) that attaches a terminal to the pane's window.
func (t *Exec) AttachArgs(paneID string) []string {
	return append(t.base(), "select-window", "-t", paneID, ";", "attach-session", "-t", paneID)
}

// AttachEnv is the environment for a terminal attaching with AttachArgs: without the
// variables that make a tmux client think it runs inside another server.
func AttachEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			out = append(out, kv)
		}
	}
	return out
}

// InsideServer reports whether this process runs in a pane of swarm's private server ($TMUX
// names the server's socket), where attaching would nest a client in its own server.
func (t *Exec) InsideServer() bool {
	return insideServer(os.Getenv("TMUX"), t.SocketName)
}

func insideServer(tmuxVar, socket string) bool {
	if tmuxVar == "" {
		return false
	}
	sock, _, _ := strings.Cut(tmuxVar, ",")
	return strings.HasSuffix(sock, "/"+socket)
}

// CurrentPane is the ID of the pane this process runs in, or "" outside tmux.
func CurrentPane() string { return os.Getenv("TMUX_PANE") }

// SwitchClient shows the pane's window in the tmux client this process runs in (see
// InsideServer). A failure carries tmux's own message, for the user.
func (t *Exec) SwitchClient(paneID string) error {
	_, errOut, err := t.call(nil, "switch-client", "-t", paneID)
	if err == nil {
		return nil
	}
	if msg := strings.TrimSpace(errOut); msg != "" {
		return errors.New(msg)
	}
	return err
}

// KillServer ends the private server and everything running on it; no server is not an error.
func (t *Exec) KillServer() error {
	_, err := t.run(nil, "kill-server")
	if errors.Is(err, ErrNoServer) {
		return nil
	}
	return err
}

// IsDeadNote reports the line tmux writes at the bottom of a pane whose program has ended
// ("Pane is dead (status 1, ...)"): it is tmux's, not the program's output.
func IsDeadNote(line string) bool { return strings.HasPrefix(line, "Pane is dead") }

// Message shows text for ten seconds on every client attached to the server (the status line
// of a user watching a worker), and says how many clients there were. tmux reads "#" in a
// message as a format, so it is doubled.
func (t *Exec) Message(text string) (int, error) {
	out, err := t.run(nil, "list-clients", "-F", "#{client_name}")
	if err != nil {
		return 0, err
	}
	var cmds [][]string
	for _, name := range strings.Split(strings.TrimSpace(out), "\n") {
		if name != "" {
			cmds = append(cmds, []string{"display-message", "-c", name, "-d", "10000", strings.ReplaceAll(text, "#", "##")})
		}
	}
	if len(cmds) == 0 {
		return 0, nil
	}
	_, err = t.runSeq(nil, cmds...)
	return len(cmds), err
}
