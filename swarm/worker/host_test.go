package worker

import (
	"bytes"
	"testing"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/worker/workertest"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

// The lifecycle runs here against the in-memory tmux server and a state directory in a temp
// dir; "processes" are the fake panes' programs, so nothing real is started or killed.

type testHost struct {
	*Machine
	t        *testing.T
	fake     *tmuxtest.Fake
	procs    *workertest.Processes
	warnings *bytes.Buffer
}

func newTestHost(t *testing.T) *testHost {
	t.Helper()
	dir, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fake := tmuxtest.New()
	th := &testHost{t: t, fake: fake, procs: workertest.New(fake), warnings: &bytes.Buffer{}}
	th.Machine = NewMachine(dir, fake, th.procs, th.warnings)
	return th
}

// spawn starts a tmux worker running sh (the fake runs nothing) showing screen.
func (th *testHost) spawn(name string, screen string) *state.Worker {
	th.t.Helper()
	w, err := th.Spawn(SpawnOptions{Name: name, Tmux: true, Argv: []string{"sh"}, Cwd: th.t.TempDir()})
	if err != nil {
		th.t.Fatalf("spawn %s: %v", name, err)
	}
	if screen != "" {
		if err := th.fake.SetScreen(w.Tmux.PaneID, screen); err != nil {
			th.t.Fatal(err)
		}
	}
	return w
}

// record is the named worker's record as saved.
func (th *testHost) record(name string) *state.Worker {
	th.t.Helper()
	ws, err := th.dir.LoadWorkers(nil)
	if err != nil {
		th.t.Fatal(err)
	}
	return ws.Get(name)
}
