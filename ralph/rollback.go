package ralph

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Git runs git in dir and returns its trimmed output, or an error carrying git's own message.
func Git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", args[0], msg)
	}
	return strings.TrimSpace(out.String()), nil
}

// HeadCommit is the commit checked out in dir, or "" outside a repository or before the
// first commit.
func HeadCommit(dir string) string {
	sha, err := Git(dir, "rev-parse", "--verify", "--quiet", "HEAD")
	if err != nil {
		return ""
	}
	return sha
}

// commitsSince lists the commits reachable from HEAD but not from base, newest first.
func commitsSince(dir, base string) ([]string, error) {
	out, err := Git(dir, "rev-list", base+"..HEAD")
	if err != nil {
		return nil, err
	}
	if out == "" {
		return nil, nil
	}
	return strings.Split(out, "\n"), nil
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// errTestConfig marks a test command that could not run at all (no shell, no such program):
// a configuration problem, never grounds for reverting anybody's commit.
var errTestConfig = errors.New("test command cannot run")

// runTests runs the test command with sh -c in dir. It returns nil when the tests pass, an
// error wrapping errTestConfig when the command cannot start, and another error when they fail.
func runTests(dir, command string, timeout time.Duration) (output string, err error) {
	sh, lerr := exec.LookPath("sh")
	if lerr != nil {
		return "", fmt.Errorf("%w: no shell: %v", errTestConfig, lerr)
	}
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, sh, "-c", command)
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.Env = os.Environ()
	err = cmd.Run()
	out := buf.String()
	if err == nil {
		return out, nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		// The shell's own answers for "command not found" and "cannot execute".
		if code := ee.ExitCode(); code == 127 || code == 126 {
			return out, fmt.Errorf("%w: %s (exit %d)", errTestConfig, lastLine(out), code)
		}
		if ctx.Err() != nil {
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
// a regression from a suite that was failing already.
func testsFailedAt(dir, commit, command string, timeout time.Duration) (bool, error) {
	tmp, err := os.MkdirTemp("", "swarm-regent-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	wt := tmp + "/wt"
	if _, err := Git(dir, "worktree", "add", "--detach", wt, commit); err != nil {
		return false, err
	}
	defer func() { _, _ = Git(dir, "worktree", "remove", "--force", wt) }()
	_, terr := runTests(wt, command, timeout)
	if terr != nil && errors.Is(terr, errTestConfig) {
		return false, terr
	}
	return terr != nil, nil
}

// revertCommits reverts the given commits (newest first), each as its own revert commit.
func revertCommits(dir string, commits []string) ([]string, error) {
	var done []string
	for _, c := range commits {
		if _, err := Git(dir, "revert", "--no-edit", c); err != nil {
			_, _ = Git(dir, "revert", "--abort")
			return done, err
		}
		done = append(done, c)
	}
	return done, nil
}
