package tmux

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A control-mode client (tmux -C) runs commands on the server without a tmux process each.
// Its replies come between %begin and %end lines, in the order the commands were sent;
// everything else it prints (notifications, and output unless it is turned off) is skipped.

// Control is a running control-mode client. Besides its notifications it runs commands
// without a tmux process each: a capture costs the server's work only.
type Control struct {
	cmd   *exec.Cmd
	stdin *os.File // a pipe the runtime polls: a write to it can have a deadline
	done  chan struct{}

	// wmu orders the writes (commands are answered in the order written); mu guards the
	// queue of commands waiting for their answer. They are apart so that the reader, which
	// needs mu to hand an answer over, is never held up by a write that waits for the client
	// to read its input.
	wmu     sync.Mutex
	mu      sync.Mutex
	waiting []chan controlReply // commands sent, oldest first: tmux answers in order
	closed  bool
}

type controlReply struct {
	out string
	err error
}

// ErrControlGone means the client ended before a command was answered; ErrNoAnswer that it
// did not answer in time (its replies can no longer be told apart: close it).
var (
	ErrControlGone = errors.New("the tmux control client has ended")
	ErrNoAnswer    = errors.New("the tmux control client did not answer")
)

// controlTimeout is how long a command may wait for its answer. It tells a client that is
// stuck from a server that is slow: fifty loops restarting at once on two cores have seen a
// respawn answered after two seconds, and a client given up on is replaced by tmux processes,
// which load the machine more.
// SWARM_TMUX_TIMEOUT, when set to a valid duration, bounds it as it bounds every other tmux call.
var controlTimeout = 10 * time.Second

func controlDeadline() time.Time {
	d, set := setCallTimeout()
	if !set {
		d = controlTimeout
	}
	return time.Now().Add(d)
}

// Control attaches a control-mode client to session, with its output off: the server then
// keeps nothing about the panes it would report (tmux, to 3.6a at least, can crash when a pane
// that a control client follows is respawned or cleared). It fails when the client cannot
// start; a session that does not exist, or a tmux before 3.2 (no -f), ends it at once (Done
// is closed).
func (t *Exec) Control(session string) (*Control, error) {
	// -u: text beyond ASCII (an agent's ❯ and ●) reaches a control client as it is only when
	// the client says it takes UTF-8, whatever the locale it was started in; otherwise
	// show-buffer (see Capture) writes each such character as _.
	argv := append(append([]string{}, t.base()...), "-u", "-C", "attach-session", "-f", "no-output", "-t", "="+session)
	cmd := exec.Command(t.bin(), argv...)
	cmd.Env = childEnv()
	cmd.Dir = "/"
	// The client dies with the process that reads it. tmux (3.3a at least) writes a client's
	// output itself, and output written once its reader is gone is never delivered: the server
	// then waits for it forever, so neither the client nor the server would ever end, not even
	// on kill-server. A killed Regent must not leave that behind. (Pdeathsig follows the thread
	// that started the client: Go ends a thread only when a goroutine locked to it ends. macOS
	// has no such signal: there a killed Regent's client, and so its server, can be left.)
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	endWithParent(cmd.SysProcAttr, syscall.SIGKILL)
	return startControl(cmd)
}

// startControl starts cmd as a control client: commands go to its input, answers are read
// from its output.
func startControl(cmd *exec.Cmd) (*Control, error) {
	in, stdin, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdin = in
	stdout, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	in.Close() // the client's now (or no one's)
	if err != nil {
		stdin.Close()
		return nil, err
	}
	c := &Control{cmd: cmd, stdin: stdin, done: make(chan struct{})}
	go c.read(stdout)
	return c, nil
}

// PaneNow is one look at a pane as Exec.PaneNow takes it (ErrNoPane when it is gone), without
// a tmux process.
func (c *Control) PaneNow(paneID string) (Pane, error) {
	if !validTarget(paneID) {
		return Pane{}, fmt.Errorf("invalid pane %q", paneID)
	}
	out, err := c.run("list-panes -t " + paneID + " -F '" + paneFormat + "'")
	if err != nil {
		return Pane{}, err
	}
	p, ok := findPane(out, paneID)
	if !ok {
		return Pane{}, ErrNoPane
	}
	return p, nil
}

// validTarget admits pane ids ("%12"): nothing the command parser would read otherwise.
func validTarget(id string) bool {
	if len(id) < 2 || id[0] != '%' {
		return false
	}
	for _, r := range id[1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func (c *Control) run(command string) (string, error) {
	replies, err := c.runAll(command)
	if err != nil {
		return "", err
	}
	return replies[0].out, replies[0].err
}

// runAll sends the commands at once and waits for every answer: one wait for the server
// instead of one per command. An error is the client's (gone, or not answering); each
// command's own failure is in its reply.
func (c *Control) runAll(commands ...string) ([]controlReply, error) {
	chans := make([]chan controlReply, len(commands))
	for i := range chans {
		chans[i] = make(chan controlReply, 1)
	}
	deadline := controlDeadline()
	if err := c.send(chans, strings.Join(commands, "\n")+"\n", deadline); err != nil {
		return nil, err
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	replies := make([]controlReply, len(chans))
	for i, ch := range chans {
		select {
		case replies[i] = <-ch:
			if errors.Is(replies[i].err, ErrControlGone) {
				return nil, ErrControlGone
			}
		case <-t.C:
			return nil, fmt.Errorf("%w: %s", ErrNoAnswer, commands[i])
		}
	}
	return replies, nil
}

// read hands replies to the commands waiting for them. Other lines can be long (a pane's
// output, escaped): only their start is looked at, and the rest is skipped without being kept.
func (c *Control) read(r io.Reader) {
	defer close(c.done)
	br := bufio.NewReaderSize(r, 4096)
	for {
		line, err := br.ReadSlice('\n')
		if begin, ok := bytes.CutPrefix(line, []byte("%begin ")); ok && bytes.HasSuffix(bytes.TrimRight(begin, "\r\n"), []byte(" 1")) {
			err = c.reply(br, string(bytes.TrimRight(begin, "\r\n")))
		}
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = br.ReadSlice('\n')
		}
		if err != nil {
			break
		}
	}
	c.fail()
	_ = c.cmd.Wait()
}

// fail takes no command any more and answers every command still waiting: the client is gone.
func (c *Control) fail() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for _, ch := range c.waiting {
		ch <- controlReply{err: ErrControlGone}
	}
	c.waiting = nil
}

// reply collects one command's output, up to the %end or %error that carries the same time,
// number and flags as its %begin (a pane's text may hold a line that looks like an end).
func (c *Control) reply(br *bufio.Reader, header string) error {
	var out strings.Builder
	var fail bool
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return err
		}
		trimmed := strings.TrimRight(line, "\r\n")
		if trimmed == "%end "+header || trimmed == "%error "+header {
			fail = strings.HasPrefix(trimmed, "%error")
			break
		}
		out.WriteString(trimmed + "\n")
	}
	c.mu.Lock()
	var ch chan controlReply
	if len(c.waiting) > 0 {
		ch, c.waiting = c.waiting[0], c.waiting[1:]
	}
	c.mu.Unlock()
	if ch != nil {
		r := controlReply{out: out.String()}
		if fail {
			r = controlReply{err: controlError(strings.TrimSpace(out.String()))}
		}
		ch <- r
	}
	return nil
}

// Done is closed when the client has ended.
func (c *Control) Done() <-chan struct{} { return c.done }

// send queues the answers awaited and writes the commands, in that order for every caller. A
// client that does not take its input by deadline is not answering: ErrNoAnswer.
func (c *Control) send(chans []chan controlReply, text string, deadline time.Time) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrControlGone
	}
	c.waiting = append(c.waiting, chans...)
	c.mu.Unlock()
	_ = c.stdin.SetWriteDeadline(deadline)
	if _, err := io.WriteString(c.stdin, text); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("%w: it does not take its input", ErrNoAnswer)
		}
		// The reader fails every waiting command once the client is gone.
		_ = c.stdin.Close()
	}
	return nil
}

// closeWait is how long Close waits for the client to leave once its input is closed, before
// it is killed, and then for its end to be seen.
const closeWait = 2 * time.Second

// Close detaches the client (closing its input ends it) and waits for it; a client that does
// not leave is killed, so that closing never hangs. Its output may stay open after that: a
// control client's output is written by the server itself, and a stopped server holds it
// until it runs again. The client takes no command from then on.
func (c *Control) Close() {
	_ = c.stdin.Close()
	select {
	case <-c.done:
		return
	case <-time.After(closeWait):
	}
	c.fail()
	_ = c.cmd.Process.Kill()
	select {
	case <-c.done:
	case <-time.After(closeWait):
	}
}

// controlError is a command's failure, told as Exec tells it.
func controlError(msg string) error {
	if strings.Contains(msg, "can't find pane") {
		return fmt.Errorf("%w: %s", ErrNoPane, msg)
	}
	return errors.New(msg)
}
