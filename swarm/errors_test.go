package swarm

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"

	"github.com/swarm-dev/swarm/swarm/worker"
)

func TestFailKeepsItsCause(t *testing.T) {
	cause := &fs.PathError{Op: "open", Path: "/x/PROMPT.md", Err: fs.ErrNotExist}
	err := fail("cannot read %s: %w", "PROMPT.md", cause)
	if got, want := err.Error(), fmt.Sprintf("cannot read %s: %v", "PROMPT.md", cause); got != want {
		t.Errorf("message %q, want %q (as with %%v)", got, want)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Error("errors.Is does not reach the cause")
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != "/x/PROMPT.md" {
		t.Errorf("errors.As does not reach the cause: %v", pe)
	}
	if errors.Unwrap(err) != error(cause) {
		t.Errorf("Unwrap = %v, want the cause", errors.Unwrap(err))
	}
	if code, _, _ := codeOf(err); code != ExitError {
		t.Errorf("exit %d, want %d", code, ExitError)
	}
}

func TestFailWithSeveralCauses(t *testing.T) {
	err := fail("%w; then %w", os.ErrPermission, syscall.ENOSPC)
	if got, want := err.Error(), fmt.Sprintf("%v; then %v", os.ErrPermission, syscall.ENOSPC); got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if !errors.Is(err, os.ErrPermission) || !errors.Is(err, syscall.ENOSPC) {
		t.Error("errors.Is does not reach every cause")
	}
}

func TestFailWithoutCause(t *testing.T) {
	err := fail("bad %s: %v", "x", 3)
	if err.Error() != "bad x: 3" || errors.Unwrap(err) != nil {
		t.Errorf("fail without %%w: %q, unwraps to %v", err, errors.Unwrap(err))
	}
}

func TestNotFoundIsNoWorker(t *testing.T) {
	if err := fmt.Errorf("ralph: %w", notFound("w1")); !errors.Is(err, errNoWorker) {
		t.Errorf("%v does not wrap errNoWorker", err)
	}
}

// TestCodeOf is the table of the one mapping from errors to exit codes.
func TestCodeOf(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		code   int
		msg    string
		silent bool
	}{
		{"nil", nil, ExitOK, "", true},
		{"fail", fail("bad %s", "x"), ExitError, "bad x", false},
		{"not found", notFound("w"), ExitNotFound, "no worker named 'w'", false},
		{"silent code", exitCode(ExitStagnated), ExitStagnated, "", true},
		{"plain", errors.New("plain"), ExitError, "plain", false},
		{"wrapped plain", fmt.Errorf("a: %w", os.ErrNotExist), ExitError, "a: " + os.ErrNotExist.Error(), false},
		{"wrapped sentinel", fmt.Errorf("loop: %w", errNoWorker), ExitNotFound, "loop: no such worker", false},
		{"wrapped exitError", fmt.Errorf("x: %w", notFound("w")), ExitNotFound, "no worker named 'w'", false},
		{"lifecycle's no worker", &worker.NoWorkerError{Name: "w"}, ExitNotFound, "no worker named 'w'", false},
		{"lifecycle's interruption", fmt.Errorf("spawn: %w", &worker.InterruptedError{Signal: syscall.SIGINT, Before: "'w' was ready"}),
			ExitInterrupted, "spawn: interrupted (SIGINT) before 'w' was ready", false},
		{"fail around the lifecycle's no worker", fail("cannot pause: %w", &worker.NoWorkerError{Name: "w"}), ExitError, "cannot pause: no worker named 'w'", false},
		// The outermost exitError decides: a failure that wraps a missing worker is its own.
		{"fail around not found", fail("cannot pause: %w", notFound("w")), ExitError, "cannot pause: no worker named 'w'", false},
	}
	for _, c := range cases {
		code, msg, silent := codeOf(c.err)
		if code != c.code || msg != c.msg || silent != c.silent {
			t.Errorf("%s: codeOf = %d %q %v, want %d %q %v", c.name, code, msg, silent, c.code, c.msg, c.silent)
		}
	}
}

// The lifecycle's "no worker" is not found too, unless a command's own failure wraps it.
func TestLifecycleNoWorkerIsNotFound(t *testing.T) {
	if !isNotFound(&worker.NoWorkerError{Name: "w"}) || !isNotFound(fmt.Errorf("x: %w", &worker.NoWorkerError{Name: "w"})) {
		t.Error("the lifecycle's missing worker is not taken for one")
	}
	if isNotFound(fail("cannot pause: %w", &worker.NoWorkerError{Name: "w"})) {
		t.Error("a command's failure around a missing worker is taken for a missing worker")
	}
}
