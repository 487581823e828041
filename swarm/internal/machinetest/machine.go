// Package machinetest is this machine's worker lifecycle on the in-memory tmux server, for
// the tests of the packages above the worker lifecycle (the Regent's client and daemon, a
// loop's life): a worker.Machine on a testmachine bench. The worker lifecycle's own tests
// stand on testmachine alone, which is why this is a package of its own.
package machinetest

import (
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/internal/testmachine"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// Machine is a worker.Machine of a test, with the bench it stands on.
type Machine struct {
	*worker.Machine
	*testmachine.Bench
}

// New is a machine on a fresh bench where a window of the session endAtStart ends as it
// starts: a keeper window that found nothing to do and left at once, so starting the Regent
// returns without waiting.
func New(t *testing.T, endAtStart string) *Machine {
	t.Helper()
	b := testmachine.New(t)
	b.EndAtStart(endAtStart)
	return &Machine{Machine: worker.NewMachine(b.State, b.Fake, b.Processes, b.Warnings), Bench: b}
}

// SpawnShell starts a tmux worker running sh (the fake runs nothing).
func (m *Machine) SpawnShell(name string) *state.Worker {
	m.T.Helper()
	w, err := m.Spawn(worker.SpawnOptions{Name: name, Tmux: true, Argv: []string{"sh"}, Cwd: m.T.TempDir()})
	if err != nil {
		m.T.Fatalf("spawn %s: %v", name, err)
	}
	return w
}

// SpawnLoop spawns the worker name and gives it a loop in state st.
func (m *Machine) SpawnLoop(name string, st ralph.State) ralph.Dir {
	m.T.Helper()
	m.SpawnShell(name)
	return m.Loop(name, st)
}
