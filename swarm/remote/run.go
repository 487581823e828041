package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// Streams are what a remote command reads and writes. Without Stdin, the command gets a pipe
// that stays open while it runs: the host's swarm (host __run) ends the command when that pipe
// closes, so a command left behind by a dropped connection or an interrupted swarm (logs
// --follow, wait) does not run on there.
type Streams struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// Run runs the host's swarm with args and returns its exit code; an *Error when ssh could not
// reach it (swarm itself never exits with 255, ssh's own failure). The command goes through
// the master connection's control socket when the master opens a session for it, else
// through an ssh client process (a master that is gone, or a host whose sshd allows no more
// sessions on one connection: the client then makes a connection of its own).
func (c *Conn) Run(ctx context.Context, args []string, s Streams) (int, error) {
	if err := c.Connect(ctx); err != nil {
		return 0, err
	}
	line := c.commandLine(args)
	code, err := c.runMux(ctx, line, s)
	if !errors.Is(err, errNoMuxSession) {
		return code, err
	}
	if ctx.Err() != nil {
		return 0, c.stopped(ctx)
	}
	return c.runSSH(ctx, line, s)
}

// runSSH runs line on the host through an ssh client process.
func (c *Conn) runSSH(ctx context.Context, line string, s Streams) (int, error) {
	cmd := c.Shell(ctx, false, line)
	cmd.Stdout = s.Stdout
	filter := NewStderrFilter(s.Stderr)
	cmd.Stderr = filter
	var hold io.WriteCloser
	if s.Stdin != nil {
		cmd.Stdin = s.Stdin
	} else {
		var err error
		if hold, err = cmd.StdinPipe(); err != nil {
			return 0, err
		}
	}
	err := cmd.Run()
	filter.Close()
	if hold != nil {
		hold.Close()
	}
	return c.exitOf(ctx, err, filter.Said())
}

// RunTerminal runs the host's swarm with args on a terminal of the host when tty (attach),
// its input and output this process's own, and returns its exit code or why ssh failed.
func (c *Conn) RunTerminal(ctx context.Context, tty bool, args []string, s Streams) (int, error) {
	if err := c.Connect(ctx); err != nil {
		return 0, err
	}
	cmd := c.Command(ctx, tty, args...)
	cmd.Stdin, cmd.Stdout = s.Stdin, s.Stdout
	filter := NewStderrFilter(s.Stderr)
	cmd.Stderr = filter
	err := cmd.Run()
	filter.Close()
	return c.exitOf(ctx, err, filter.Said())
}

// exitOf reads how a remote command ended: its exit code, or why ssh failed.
func (c *Conn) exitOf(ctx context.Context, err error, said string) (int, error) {
	if err == nil {
		return 0, nil
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return 0, fmt.Errorf("cannot run ssh: %w", err)
	}
	return c.ended(ctx, exit.ExitCode(), said)
}

// ended reads a remote command's exit status as ssh's: 255 (or none, -1) is ssh's own
// failure, told by what it said.
func (c *Conn) ended(ctx context.Context, code int, said string) (int, error) {
	if code == 0 {
		return 0, nil
	}
	if ctx.Err() != nil {
		return 0, c.stopped(ctx)
	}
	if code >= 0 && code != 255 {
		return code, nil
	}
	return 0, c.Classify(said)
}

// Output runs the host's swarm with args and returns what it printed, at most MaxReply bytes
// (a *TooLargeError when it printed more: the command is ended there); a failure is an error
// with what it said.
func (c *Conn) Output(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	large := &TooLargeError{Host: c.Host.Name, Max: MaxReply}
	out := NewBounded(MaxReply, func() { cancel(large) })
	errs := NewBounded(maxSaid, nil)
	code, err := c.Run(ctx, args, Streams{Stdin: stdin, Stdout: out, Stderr: errs})
	if out.Full() {
		return nil, large
	}
	if err != nil {
		return nil, err
	}
	if code != 0 {
		said := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(errs.Bytes())), "swarm: error: "))
		if said == "" {
			said = fmt.Sprintf("exit status %d", code)
		}
		return out.Bytes(), &RemoteError{Host: c.Host.Name, Code: code, Said: said}
	}
	return out.Bytes(), nil
}

// RemoteError is a command the host's swarm ran and failed.
type RemoteError struct {
	Host string
	Code int
	Said string
}

func (e *RemoteError) Error() string { return fmt.Sprintf("on %s: %s", e.Host, e.Said) }

// timedOut is a command that did not end within its time limit. A master connection that
// does not answer is likely held up on a network that went away: ended now, the next command
// connects afresh instead of waiting behind it.
func (c *Conn) timedOut() *Error {
	_ = c.Disconnect()
	return c.errorOf(KindUnreachable, "no answer within the time limit")
}
