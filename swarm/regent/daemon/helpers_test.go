package daemon

import (
	"testing"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/internal/testmachine"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// The tests run on a machine of the in-memory tmux server (testmachine). A keeper window on the
// fake server stands for a keeper that found nothing to do and left at once, so starting the
// Regent returns without waiting.

type testMachine struct {
	*worker.Machine
	*testmachine.Bench
}

func newTestMachine(t *testing.T) *testMachine {
	t.Helper()
	b := testmachine.New(t)
	b.EndAtStart(regent.Session)
	return &testMachine{Machine: worker.NewMachine(b.State, b.Fake, b.Processes, b.Warnings), Bench: b}
}

// spawn starts a tmux worker running sh (the fake runs nothing).
func (mt *testMachine) spawn(name string) *state.Worker {
	mt.T.Helper()
	w, err := mt.Spawn(worker.SpawnOptions{Name: name, Tmux: true, Argv: []string{"sh"}, Cwd: mt.T.TempDir()})
	if err != nil {
		mt.T.Fatalf("spawn %s: %v", name, err)
	}
	return w
}
