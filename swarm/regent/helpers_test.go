package regent

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/worker"
	"github.com/swarm-dev/swarm/swarm/worker/workertest"
	"github.com/swarm-dev/swarm/tmux"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

// The daemon and the monitors run here against the in-memory tmux server and a state
// directory in a temp dir; "processes" are the fake panes' programs, so nothing real is
// started or killed. A keeper window on the fake server stands for a keeper that found nothing
// to do and left at once, so starting the Regent returns without waiting.

type testHost struct {
	*worker.Machine
	t     *testing.T
	fake  *tmuxtest.Fake
	procs *workertest.Processes
	warn  *bytes.Buffer
}

func newTestHost(t *testing.T) *testHost {
	t.Helper()
	dir, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fake := tmuxtest.New()
	fake.OnStart = func(p *tmuxtest.FakePane, s tmux.Spec) {
		if s.Session == Session {
			p.Exit(0)
		}
	}
	th := &testHost{t: t, fake: fake, procs: workertest.New(fake), warn: &bytes.Buffer{}}
	th.Machine = worker.NewMachine(dir, fake, th.procs, th.warn)
	return th
}

// spawn starts a tmux worker running sh (the fake runs nothing).
func (th *testHost) spawn(name string) *state.Worker {
	th.t.Helper()
	w, err := th.Spawn(worker.SpawnOptions{Name: name, Tmux: true, Argv: []string{"sh"}, Cwd: th.t.TempDir()})
	if err != nil {
		th.t.Fatalf("spawn %s: %v", name, err)
	}
	return w
}

// loop gives a new fake worker name a loop in state st.
func (th *testHost) loop(name string, st ralph.State) ralph.Dir {
	th.t.Helper()
	th.spawn(name)
	ld := ralph.DirFor(th.Dir(), name)
	st.WorkerName = name
	if st.MaxIterations == 0 {
		st.MaxIterations = 5
	}
	if err := ld.Create(&st); err != nil {
		th.t.Fatal(err)
	}
	return ld
}

// loopState reads a loop's state.
func (th *testHost) loopState(ld ralph.Dir) *ralph.State {
	th.t.Helper()
	st, err := ld.Load()
	if err != nil {
		th.t.Fatal(err)
	}
	return st
}

// keepers lists the argv of every keeper started on the fake server.
func (th *testHost) keepers() [][]string {
	var out [][]string
	for _, id := range th.fake.PaneIDs() {
		if p, ok := th.fake.Get(id); ok && p.Session == Session {
			out = append(out, p.Spec.Argv)
		}
	}
	return out
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
