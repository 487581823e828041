package driver

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

	"github.com/swarm-dev/swarm/ralph/git"
)

// errTestConfig marks a test command that could not run at all (no shell, no such program):
// a configuration problem, never grounds for reverting anybody's commit.
var errTestConfig = errors.New("test command cannot run")

// errTestsCutShort marks a test run ended because the loop is being stopped: not tested, so
// neither a pass nor a failure.
var errTestsCutShort = errors.New("tests cut short: the loop is stopping")

// runTests runs the test command with sh -c in dir. It returns nil when the tests pass, an
// error wrapping errTestConfig when the command cannot start, errTestsCutShort when ctx ended
// first (the run is ended with its process group at once), and another error when they fail.
func runTests(ctx context.Context, dir, command string, timeout time.Duration) (output string, err error) {
	if ctx.Err() != nil {
		return "", errTestsCutShort
	}
	sh, lerr := exec.LookPath("sh")
	if lerr != nil {
		return "", fmt.Errorf("%w: no shell: %v", errTestConfig, lerr)
	}
	runCtx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(runCtx, sh, "-c", command)
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.Env = os.Environ()
	// Its own group, recorded while it runs: a driver's successor ends what a dead driver left.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// Something that left the group and holds its output must not hold the loop up either.
	cmd.WaitDelay = killGrace
	if err = cmd.Start(); err == nil {
		untrack := trackChild(cmd.Process.Pid)
		err = cmd.Wait()
		untrack()
	}
	out := buf.String()
	if err == nil {
		return out, nil
	}
	if ctx.Err() != nil {
		return out, errTestsCutShort
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		// The shell's own answers for "command not found" and "cannot execute".
		if code := ee.ExitCode(); code == 127 || code == 126 {
			return out, fmt.Errorf("%w: %s (exit %d)", errTestConfig, lastLine(out), code)
		}
		if runCtx.Err() != nil {
			return out, fmt.Errorf("tests timed out after %s", timeout)
		}
		return out, fmt.Errorf("tests failed (exit %d)", ee.ExitCode())
	}
	return out, fmt.Errorf("%w: %v", errTestConfig, err)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// testsFailedAt runs the test command on an earlier commit, in a throwaway worktree, to tell
// a regression from a suite that was failing already. A run ctx cut short is an error
// wrapping errTestsCutShort.
func testsFailedAt(ctx context.Context, dir, commit, command string, timeout time.Duration) (bool, error) {
	failed := false
	err := git.WithCheckout(dir, commit, func(wt string) error {
		_, terr := runTests(ctx, wt, command, timeout)
		if errors.Is(terr, errTestConfig) || errors.Is(terr, errTestsCutShort) {
			return terr
		}
		failed = terr != nil
		return nil
	})
	return failed, err
}
