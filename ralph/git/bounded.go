package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// The git commands of landing run the repository's hooks (a pre-merge-commit hook running a
// linter, a post-merge one, a reference-transaction one) or reach a remote: they run under a
// context whose deadline is landing's time limit, in a process group of their own so that a
// hook that never ends is ended with them, and dying with the process that started them.

// ErrTimedOut is the cause of a git command ended at its time limit.
var ErrTimedOut = errors.New("time limit reached")

// timeoutError says which command was ended, and after how long.
type timeoutError struct {
	cmd   string
	limit time.Duration
}

func (e timeoutError) Error() string {
	return fmt.Sprintf("git %s did not end within %s (the repository's hooks with it) and was ended", e.cmd, e.limit)
}

func (e timeoutError) Is(target error) bool { return target == ErrTimedOut }

// killWait is how long what a git command left holding its output may keep it once the
// command is gone.
const killWait = 2 * time.Second

// outputBound is how much of a git command's output is kept: its last bytes, where git and a
// hook say what went wrong.
const outputBound = 64 << 10

// bounded says how a git command of landing runs.
type bounded struct {
	ctx context.Context
	// ownGroup: in a process group of its own, ended whole. Not for a command that may ask
	// for credentials on the terminal (a push, a fetch): a process group in the background
	// of a terminal is stopped when it reads from it.
	ownGroup bool
	env      []string
}

// run runs git in dir under b and returns its trimmed output (stdout), or an error carrying
// the end of git's own message (stderr, where hooks write too).
func (b bounded) run(dir string, args ...string) (string, error) {
	if err := b.ctx.Err(); err != nil {
		return "", fmt.Errorf("git %s: not started: %w", args[0], err)
	}
	limit := time.Duration(0)
	if deadline, ok := b.ctx.Deadline(); ok {
		limit = time.Until(deadline).Round(100 * time.Millisecond)
	}
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	if len(b.env) > 0 {
		cmd.Env = append(os.Environ(), b.env...)
	}
	out, errb := &tailBuffer{max: outputBound}, &tailBuffer{max: outputBound}
	cmd.Stdout, cmd.Stderr = out, errb
	group := b.ownGroup || tracking()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: group}
	endWithParent(cmd.SysProcAttr, syscall.SIGKILL)
	cmd.WaitDelay = killWait
	if err := cmd.Start(); err != nil {
		return "", gitError(args[0], "", err)
	}
	defer track(cmd.Process.Pid)()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-b.ctx.Done():
		end(cmd, group, done)
		if errors.Is(b.ctx.Err(), context.DeadlineExceeded) {
			return "", timeoutError{cmd: args[0], limit: limit}
		}
		return "", fmt.Errorf("git %s was interrupted: %w", args[0], b.ctx.Err())
	}
	if err != nil {
		return "", gitError(args[0], errb.String(), err)
	}
	return strings.TrimSpace(out.String()), nil
}

// end ends a command whose context ended: SIGTERM first, on which git removes the lock files
// it holds (a SIGKILLed git leaves index.lock behind, and every later git command fails on
// it), then SIGKILL after killWait; its whole group when it has one of its own. done delivers
// its end.
func end(cmd *exec.Cmd, group bool, done <-chan error) {
	signal := func(sig syscall.Signal) {
		if group {
			_ = syscall.Kill(-cmd.Process.Pid, sig)
		} else {
			_ = cmd.Process.Signal(sig)
		}
	}
	signal(syscall.SIGTERM)
	select {
	case <-done:
		if group {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what the hooks left
		}
	case <-time.After(killWait):
		signal(syscall.SIGKILL)
		<-done
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	buf bytes.Buffer
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) > t.max {
		p = p[len(p)-t.max:]
	}
	if over := t.buf.Len() + len(p) - t.max; over > 0 {
		rest := append([]byte(nil), t.buf.Bytes()[over:]...)
		t.buf.Reset()
		t.buf.Write(rest)
	}
	t.buf.Write(p)
	return n, nil
}

func (t *tailBuffer) String() string { return t.buf.String() }
