package worker

import (
	"testing"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/internal/testmachine"
)

// The lifecycle runs here on a machine of the in-memory tmux server (testmachine): nothing real
// is started or killed.

type testMachine struct {
	*Machine
	*testmachine.Bench
}

func newTestMachine(t *testing.T) *testMachine {
	t.Helper()
	b := testmachine.New(t)
	return &testMachine{Machine: NewMachine(b.State, b.Fake, b.Processes, b.Warnings), Bench: b}
}

// spawn starts a tmux worker running sh (the fake runs nothing) showing screen.
func (mt *testMachine) spawn(name string, screen string) *state.Worker {
	mt.T.Helper()
	w, err := mt.Spawn(SpawnOptions{Name: name, Tmux: true, Argv: []string{"sh"}, Cwd: mt.T.TempDir()})
	if err != nil {
		mt.T.Fatalf("spawn %s: %v", name, err)
	}
	mt.Show(w.Tmux.PaneID, screen)
	return w
}

// record is the named worker's record as saved.
func (mt *testMachine) record(name string) *state.Worker {
	mt.T.Helper()
	ws, err := mt.dir.LoadWorkers(nil)
	if err != nil {
		mt.T.Fatal(err)
	}
	return ws.Get(name)
}
