package swarm

import (
	"errors"
	"os"
	"os/exec"
	"testing"
)

func TestProcessAliveKnowsItsStartTime(t *testing.T) {
	me := os.Getpid()
	start := processStart(me)
	if start == 0 || !processAlive(me, start) || !processAlive(me, 0) {
		t.Fatalf("this process is not seen alive (start %d)", start)
	}
	if processAlive(me, start+1) {
		t.Error("a different start time means a different process (PID reuse)")
	}
	if processAlive(1<<22+12345, 0) {
		t.Error("a PID that does not exist is alive")
	}
}

func TestStartFailureNamesTheProblem(t *testing.T) {
	cases := []struct {
		err  error
		code int
		msg  string
	}{
		{exec.ErrNotFound, 127, "executable not found: prog"},
		{os.ErrNotExist, 127, "executable not found: prog"},
		{os.ErrPermission, 126, "permission denied: prog"},
		{errors.New("exec format error"), 126, "cannot start prog: exec format error"},
	}
	for _, c := range cases {
		code, msg := startFailure("prog", c.err)
		if code != c.code || msg != c.msg {
			t.Errorf("startFailure(%v) = %d %q, want %d %q", c.err, code, msg, c.code, c.msg)
		}
	}
}
