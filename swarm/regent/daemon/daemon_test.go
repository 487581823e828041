package daemon

import (
	"context"
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
	mt := newTestMachine(t)
	if err := os.MkdirAll(mt.Dir().Root+"/logs", 0o700); err != nil {
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
		ld := ralph.DirFor(mt.Dir(), c.name)
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
		pipe := mt.Dir().PaneShellPath(c.name)
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
	newDaemon(mt.Machine, io.Discard).scan()
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

// Every loop the Regent drives runs under a context of its own: dropping a loop cancels that
// one alone, ending every agent cancels every loop driven then and not one driven afterwards,
// and the daemon's own context reaches every loop's.
func TestRegentLoopContexts(t *testing.T) {
	mt := newTestMachine(t)
	r := newDaemon(mt.Machine, io.Discard)
	defer r.stop()
	a, b, c := r.track("a"), r.track("b"), r.track("c")
	wantCancelled := func(when string, want map[string]bool) {
		t.Helper()
		for name, dl := range map[string]*drivenLoop{"a": a, "b": b, "c": c} {
			if got := dl.ctx.Err() != nil; got != want[name] {
				t.Errorf("%s: loop %s cancelled %v, want %v", when, name, got, want[name])
			}
		}
	}
	wantCancelled("at first", nil)
	r.drop("b")
	wantCancelled("b dropped", map[string]bool{"b": true})
	r.mu.Lock()
	delete(r.loops, "c") // its monitor left
	r.mu.Unlock()
	r.abortAll()
	wantCancelled("every agent ended", map[string]bool{"a": true, "b": true})
	d := r.track("d")
	if d.ctx.Err() != nil {
		t.Error("a loop driven after every agent was ended starts cancelled")
	}
	r.stop()
	for name, dl := range map[string]*drivenLoop{"c": c, "d": d} {
		if !errors.Is(dl.ctx.Err(), context.Canceled) {
			t.Errorf("the daemon stopped: loop %s not cancelled (%v)", name, dl.ctx.Err())
		}
	}
}
