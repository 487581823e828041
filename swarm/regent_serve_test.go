package swarm

import (
	"errors"
	"io"
	"os"
	"syscall"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// A monitor killed between recording its loop's end and dismissing the shell in the loop's
// pane leaves that shell waiting for an agent to start; the next Regent's look at the loops
// tells it to end. Only a finished loop's, and only when no monitor drives the loop.
func TestRegentEndsTheShellLeftInAFinishedLoopsPane(t *testing.T) {
	te := newTestEnv(t)
	if err := os.MkdirAll(te.dir.Root+"/logs", 0o700); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		status ralph.Status
		driven bool // its monitor lock is held
		told   bool
	}{
		{"stopped", ralph.StatusStopped, false, true},
		{"failed", ralph.StatusFailed, false, true},
		{"paused", ralph.StatusPaused, false, false},
		{"stopping", ralph.StatusStopped, true, false},
	}
	readers := map[string]*os.File{}
	for _, c := range cases {
		ld := ralph.DirFor(te.dir, c.name)
		if err := ld.Create(&ralph.State{Status: c.status}); err != nil {
			t.Fatal(err)
		}
		if c.driven {
			lock, ok, err := state.TryLock(ld.MonitorLockPath())
			if err != nil || !ok {
				t.Fatal(err)
			}
			defer lock.Unlock()
		}
		pipe := te.dir.HostPath(c.name)
		if err := syscall.Mkfifo(pipe, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(pipe, os.O_RDONLY|syscall.O_NONBLOCK, 0) // the shell's end
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		readers[c.name] = f
	}
	newRegent(te.env, io.Discard).scan()
	for _, c := range cases {
		buf := make([]byte, 64)
		n, err := readers[c.name].Read(buf)
		if errors.Is(err, syscall.EAGAIN) || errors.Is(err, io.EOF) {
			n = 0
		} else if err != nil {
			t.Fatal(err)
		}
		if got := string(buf[:n]); (got == "exit\n") != c.told {
			t.Errorf("loop %s (%s, driven %v): its shell read %q", c.name, c.status, c.driven, got)
		}
	}
}
