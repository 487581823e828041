package driver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph/testrun"
)

// Running the user's own steps (checkers, hooks): in their own process group, so a time limit,
// or the loop's context ending (the loop stopped, its Regent shutting down), ends whatever
// they started, not just the shell.

// shellRun is one command to run.
type shellRun struct {
	Dir     string
	Argv    []string // argv[0] is looked up in PATH
	Env     []string // the whole environment
	Timeout time.Duration
	Out     io.Writer // also gets the output as it comes; nil: kept only
}

// shellResult is how it went.
type shellResult struct {
	Code     int    // exit code; -1 when it could not run or was killed
	TimedOut bool   // ended at the time limit
	CutShort bool   // ended, or never started, because the context ended
	Output   string // the first outputLimit bytes of stdout and stderr together
	Err      error  // it could not be started
}

// outputLimit bounds how much of a step's output is kept for its message.
const outputLimit = 64 << 10

// shownLimit bounds how much of a step's output goes on to Out (the loop's monitor.log, or
// the terminal of a loop in the foreground): a step printing without end would otherwise fill
// the log (rotating the loop's own lines out of it) or flood the terminal.
const shownLimit = 64 << 10

// cappedWriter passes on the first max bytes written to it, and says, once closed, how much
// more it did not.
type cappedWriter struct {
	w      io.Writer
	max    int64
	passed int64
	cut    int64
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	if room := c.max - c.passed; room > 0 {
		n := min(int64(len(p)), room)
		_, _ = c.w.Write(p[:n])
		c.passed += n
		c.cut += int64(len(p)) - n
	} else {
		c.cut += int64(len(p))
	}
	return len(p), nil
}

func (c *cappedWriter) close() {
	if c.cut > 0 {
		fmt.Fprintf(c.w, "\n[... %s more of this command's output not shown: %s in all ...]\n",
			testrun.Size(c.cut), testrun.Size(c.passed+c.cut))
	}
}

// killGrace is how long a step that ran out of time gets between SIGTERM and SIGKILL.
const killGrace = 2 * time.Second

// runShell runs r to its end, its time limit or the end of ctx, whichever comes first.
func runShell(ctx context.Context, r shellRun) shellResult {
	if ctx.Err() != nil {
		return shellResult{Code: -1, CutShort: true}
	}
	cmd := exec.Command(r.Argv[0], r.Argv[1:]...)
	cmd.Dir, cmd.Env = r.Dir, r.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	kept := &limitedBuffer{max: outputLimit}
	var out io.Writer = kept
	var shown *cappedWriter
	if r.Out != nil {
		shown = &cappedWriter{w: r.Out, max: shownLimit}
		out = io.MultiWriter(kept, shown)
		defer shown.close()
	}
	cmd.Stdout, cmd.Stderr = out, out
	// Something it started and left running in the background must not hold us on its pipe.
	cmd.WaitDelay = killGrace
	if err := cmd.Start(); err != nil {
		return shellResult{Code: -1, Err: err}
	}
	defer trackChild(cmd.Process.Pid)()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var timeout <-chan time.Time
	if r.Timeout > 0 {
		t := time.NewTimer(r.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	res := shellResult{}
	var err error
	select {
	case err = <-done:
	case <-timeout:
		res.TimedOut = true
		err = endGroup(cmd.Process.Pid, done)
	case <-ctx.Done():
		// Whoever ended the context wants the loop to stop now: no grace.
		res.CutShort = true
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
	}
	res.Output = kept.String()
	res.Code = exitCodeOf(err)
	if res.TimedOut || res.CutShort {
		res.Code = -1
	}
	return res
}

// endGroup ends the process group pgid that ran out of time: SIGTERM, then SIGKILL after
// killGrace. done delivers the leader's end.
func endGroup(pgid int, done <-chan error) error {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case err := <-done:
		return err
	case <-time.After(killGrace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		return <-done
	}
}

func exitCodeOf(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() >= 0 {
		return ee.ExitCode()
	}
	return -1
}

// firstLine is the first non-blank line of a step's output.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}

// limitedBuffer keeps the first max bytes written to it and swallows the rest.
type limitedBuffer struct {
	buf bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room > 0 {
		if len(p) > room {
			b.buf.Write(p[:room])
		} else {
			b.buf.Write(p)
		}
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string { return b.buf.String() }

// lastLine is the last non-blank line of a step's output.
func lastLine(s string) string { return testrun.LastLine(s) }
