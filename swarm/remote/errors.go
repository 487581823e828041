package remote

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
)

// Kind is what went wrong reaching a host, for the message and for the fleet view (an
// unreachable host is shown from what was last seen of it).
type Kind string

// What can go wrong before the host's swarm runs.
const (
	KindAuth        Kind = "authentication"
	KindHostKey     Kind = "host key"
	KindUnreachable Kind = "unreachable"
	KindSSH         Kind = "ssh"
)

// Error is a host that could not be reached, or would not let swarm in.
type Error struct {
	Host    string
	Address string
	Kind    Kind
	// Detail is what ssh said, in one line.
	Detail string
	// Try is the command that shows the problem by hand.
	Try string
}

func (e *Error) Error() string {
	where := fmt.Sprintf("host %s (%s)", e.Host, e.Address)
	switch e.Kind {
	case KindAuth:
		return fmt.Sprintf("%s: SSH authentication failed (%s): swarm logs in with your own ssh, without prompts; load the key into your agent (ssh-add) or name it in ~/.ssh/config, and check with: %s true", where, e.Detail, e.Try)
	case KindHostKey:
		return fmt.Sprintf("%s: the host's SSH key is not known or has changed (%s): check and accept it with: %s true", where, e.Detail, e.Try)
	case KindUnreachable:
		return fmt.Sprintf("%s is unreachable: %s", where, e.Detail)
	}
	return fmt.Sprintf("%s: ssh failed: %s", where, e.Detail)
}

func (c *Conn) errorOf(kind Kind, detail string) *Error {
	return &Error{Host: c.Host.Name, Address: c.Host.Address, Kind: kind, Detail: detail, Try: c.SSHLine()}
}

// Classify reads what ssh said when it failed (exit status 255) as an *Error.
func (c *Conn) Classify(said string) *Error {
	lines := sshLines(said)
	detail := "ssh exited with status 255"
	if len(lines) > 0 {
		detail = lines[len(lines)-1]
	}
	all := strings.Join(lines, "\n")
	switch {
	case strings.Contains(all, "Permission denied") || strings.Contains(all, "Too many authentication failures"):
		return c.errorOf(KindAuth, detail)
	case strings.Contains(all, "Host key verification failed") || strings.Contains(all, "REMOTE HOST IDENTIFICATION HAS CHANGED") ||
		strings.Contains(all, "No ED25519 host key is known") || strings.Contains(all, "host key is known"):
		return c.errorOf(KindHostKey, detail)
	case strings.Contains(all, "Connection refused") || strings.Contains(all, "timed out") ||
		strings.Contains(all, "No route to host") || strings.Contains(all, "Could not resolve hostname") ||
		strings.Contains(all, "Network is unreachable") || strings.Contains(all, "Connection closed") ||
		strings.Contains(all, "Connection reset") || strings.Contains(all, "Broken pipe") ||
		strings.Contains(all, "Timeout, server") || strings.Contains(all, "kex_exchange_identification"):
		return c.errorOf(KindUnreachable, detail)
	}
	return c.errorOf(KindSSH, detail)
}

// sshLines are the non-empty lines of what ssh said, without the warnings it gives on every
// first connection.
func sshLines(said string) []string {
	var out []string
	for _, l := range strings.Split(said, "\n") {
		l = strings.TrimSpace(strings.TrimSuffix(l, "\r"))
		if l == "" || strings.HasPrefix(l, "Warning: Permanently added") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// isSSHLine says whether a line on a remote command's standard error is ssh's own rather
// than the host's swarm's: those are held back and told once, as an *Error.
func isSSHLine(l string) bool {
	for _, p := range []string{"ssh: ", "Permission denied", "Host key verification failed", "kex_exchange_identification",
		"Connection closed by", "Connection to ", "Control socket connect", "mux_client", "Warning: Permanently added",
		"Timeout, server", "client_loop:", "Shared connection to", "channel ", "@@@@", "ControlSocket"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// StderrFilter passes a remote command's standard error through, line by line, holding back
// ssh's own lines (see Said).
type StderrFilter struct {
	mu      sync.Mutex
	out     io.Writer
	partial []byte
	held    []string
}

// NewStderrFilter passes lines on to out.
func NewStderrFilter(out io.Writer) *StderrFilter { return &StderrFilter{out: out} }

func (f *StderrFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.partial = append(f.partial, p...)
	for {
		i := bytes.IndexByte(f.partial, '\n')
		if i < 0 {
			break
		}
		f.line(f.partial[:i+1])
		f.partial = f.partial[i+1:]
	}
	return len(p), nil
}

func (f *StderrFilter) line(l []byte) {
	text := strings.TrimRight(string(l), "\r\n")
	if isSSHLine(text) {
		f.held = append(f.held, text)
		return
	}
	_, _ = f.out.Write(l)
}

// Close passes on a last line without its newline.
func (f *StderrFilter) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.partial) > 0 {
		f.line(f.partial)
		f.partial = nil
	}
}

// Said is what ssh said of its own.
func (f *StderrFilter) Said() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.held, "\n")
}
