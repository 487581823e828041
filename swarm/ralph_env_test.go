package swarm

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/tmux"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

// Loops in these tests are state files next to a fake worker; no monitor runs unless a test
// drives one in this process. A keeper window on the fake server stands for a keeper that
// found nothing to do and left at once, so starting a monitor returns without waiting.

func newLoopEnv(t *testing.T) *testEnv {
	t.Helper()
	te := newTestEnv(t)
	te.fake.OnStart = func(p *tmuxtest.FakePane, s tmux.Spec) {
		if s.Session == regent.Session {
			p.Exit(0)
		}
	}
	return te
}

// loop gives a new fake worker name a loop in state st.
func (te *testEnv) loop(name string, st ralph.State) ralph.Dir {
	te.t.Helper()
	te.spawn(name, "")
	ld := ralph.DirFor(te.Dir(), name)
	st.WorkerName = name
	if st.MaxIterations == 0 {
		st.MaxIterations = 5
	}
	if err := ld.Create(&st); err != nil {
		te.t.Fatal(err)
	}
	return ld
}

// loopState reads a loop's state.
func (te *testEnv) loopState(ld ralph.Dir) *ralph.State {
	te.t.Helper()
	st, err := ld.Load()
	if err != nil {
		te.t.Fatal(err)
	}
	return st
}

// holdMonitor takes the loop's monitor lock, as a live monitor holds it, until release is
// called or the test ends.
func holdMonitor(t *testing.T, ld ralph.Dir) (release func()) {
	t.Helper()
	l, ok, err := state.TryLock(ld.MonitorLockPath())
	if err != nil || !ok {
		t.Fatalf("cannot take the monitor lock: %v", err)
	}
	t.Cleanup(l.Unlock)
	return l.Unlock
}

// keepers lists the argv of every keeper started on the fake server.
func (te *testEnv) keepers() [][]string {
	var out [][]string
	for _, id := range te.fake.PaneIDs() {
		if p, ok := te.fake.Get(id); ok && p.Session == regent.Session {
			out = append(out, p.Spec.Argv)
		}
	}
	return out
}

// events is the loop's iterations.log without the times.
func events(t *testing.T, ld ralph.Dir) []string {
	t.Helper()
	data, err := os.ReadFile(ld.IterationsLog())
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if _, ev, ok := strings.Cut(l, " "); ok {
			out = append(out, ev)
		}
	}
	return out
}

// errText returns the command's stderr and clears it.
func (te *testEnv) errText() string {
	s := te.errb.String()
	te.errb.Reset()
	return s
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
