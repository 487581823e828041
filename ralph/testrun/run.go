package testrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Spec is one run of a test command.
type Spec struct {
	Command string // run by sh -c
	Dir     string
	// Timeout bounds the run; 0: none.
	Timeout time.Duration
	// Env is added to this process's environment.
	Env []string
	// OutputFile keeps the output (bounded, see HeadSize and TailSize); "": memory only.
	OutputFile string
	// Started, when set, is told the run's process group as it starts; the func it returns is
	// called once the group is gone.
	Started func(pgid int) (done func())
}

// Outcome is how a run ended.
type Outcome int

const (
	Passed Outcome = iota
	Failed
	// TimedOut: ended at Spec.Timeout; a failure of the suite, as the gate has always had it.
	TimedOut
	// CannotRun: the command could not run at all (exit 126 or 127, no shell, no directory).
	CannotRun
	// CutShort: the context ended first; neither a pass nor a failure.
	CutShort
)

// Result is how a run went.
type Result struct {
	Outcome Outcome
	Command string
	Timeout time.Duration
	// Code is the exit code; -1 when the command was ended by a signal or never ran.
	Code int
	// Signal names the signal that ended the command, when one did.
	Signal string
	// Detail says why a command cannot run: "`mkae test`: sh: 1: mkae: not found (exit 127)".
	Detail  string
	Elapsed time.Duration
	// Output is what was kept of the output: all of it, or its head and tail with a line saying
	// what was cut between them.
	Output string
	// Size is how many bytes the command printed in all; Cut that not all were kept.
	Size int64
	Cut  bool
	// OutputErr says why Spec.OutputFile does not hold the output (it could not be written).
	OutputErr error
}

// ErrCannotRun is the cause of a run whose command could not run at all.
var ErrCannotRun = errors.New("test command cannot run")

// ErrCutShort is the cause of a run ended because its context ended.
var ErrCutShort = errors.New("tests cut short")

// Err is the run as an error: nil when it passed; ErrCannotRun and ErrCutShort are wrapped.
func (r Result) Err() error {
	switch r.Outcome {
	case Passed:
		return nil
	case TimedOut:
		return fmt.Errorf("tests timed out after %s", r.Timeout)
	case CannotRun:
		return fmt.Errorf("%w: %s", ErrCannotRun, r.Detail)
	case CutShort:
		return ErrCutShort
	}
	if r.Signal != "" {
		return fmt.Errorf("tests failed (ended by signal: %s)", r.Signal)
	}
	return fmt.Errorf("tests failed (exit %d)", r.Code)
}

// killGrace is how long a run that ran out of time gets between SIGTERM and SIGKILL, and how
// long a process that left the group may hold the output open once the group is gone.
const killGrace = 2 * time.Second

// Run runs s.Command to its end, its time limit or the end of ctx, whichever comes first. A
// ctx already ended starts nothing.
func Run(ctx context.Context, s Spec) Result {
	res := Result{Command: s.Command, Timeout: s.Timeout, Code: -1}
	if ctx.Err() != nil {
		res.Outcome = CutShort
		return res
	}
	out := newOutput(s.OutputFile)
	start := time.Now()
	stop, err := execute(ctx, s, out)
	res.Elapsed = time.Since(start)
	res.Output, res.Size, res.Cut = out.kept()
	res.OutputErr = out.close()
	return classify(res, err, stop)
}

// stopped says why a run was ended before its command ended by itself.
type stopped int

const (
	notStopped stopped = iota
	stoppedTimeout
	stoppedContext
)

// execute starts the command and waits for it (and, for moments, for what it left holding
// its output); err is the command's own end, or why it could not start.
func execute(ctx context.Context, s Spec, out io.Writer) (why stopped, err error) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		return notStopped, fmt.Errorf("no shell: %w", err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return notStopped, err
	}
	cmd := exec.Command(sh, "-c", s.Command)
	cmd.Args[0] = "sh" // what the shell's own messages start with: "sh: 1: mkae: not found"
	cmd.Dir, cmd.Env = s.Dir, append(os.Environ(), s.Env...)
	// An *os.File is handed to the command as it is: no copying goroutine for Wait to wait on.
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	started, release, err := endWithParent(cmd, syscall.SIGKILL)
	if err != nil {
		pr.Close()
		pw.Close()
		return notStopped, err
	}
	defer release()
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(out, pr)
		close(copied)
	}()
	err = cmd.Start()
	pw.Close()
	started()
	if err != nil {
		<-copied
		pr.Close()
		return notStopped, err
	}
	pgid := cmd.Process.Pid
	if s.Started != nil {
		defer s.Started(pgid)()
	}
	why, err = wait(ctx, cmd, s.Timeout)
	// What it left running in its group ends with it: the next run must find the tree alone.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	select {
	case <-copied:
	case <-time.After(killGrace):
		// Something that left the group still holds the output: it is not read any further.
	}
	pr.Close()
	return why, err
}

// wait waits for the command to end, ending its group at its time limit (SIGTERM, then
// SIGKILL after killGrace) or at once when ctx ends.
func wait(ctx context.Context, cmd *exec.Cmd, timeout time.Duration) (stopped, error) {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	pgid := cmd.Process.Pid
	select {
	case err := <-done:
		return notStopped, err
	case <-ctx.Done():
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		return stoppedContext, <-done
	case <-expired:
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case err := <-done:
		return stoppedTimeout, err
	case <-time.After(killGrace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		return stoppedTimeout, <-done
	}
}

// classify tells the outcome from how the command ended.
func classify(res Result, err error, why stopped) Result {
	switch {
	case why == stoppedContext:
		res.Outcome = CutShort
		return res
	case why == stoppedTimeout:
		res.Outcome = TimedOut
		return res
	case err == nil:
		res.Outcome, res.Code = Passed, 0
		return res
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		res.Outcome, res.Detail = CannotRun, fmt.Sprintf("`%s`: %v", res.Command, err)
		return res
	}
	res.Code = ee.ExitCode()
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.Signal = ws.Signal().String()
	}
	if res.Code == 126 || res.Code == 127 {
		// The shell's own answers for "cannot execute" and "not found".
		res.Outcome = CannotRun
		res.Detail = fmt.Sprintf("`%s`: %s (exit %d)", res.Command, LastLine(res.Output), res.Code)
		return res
	}
	res.Outcome = Failed
	return res
}

// LastLine is the last non-blank line of s, trimmed.
func LastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
