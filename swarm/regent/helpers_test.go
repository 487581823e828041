package regent

import (
	"testing"

	"github.com/swarm-dev/swarm/swarm/internal/machinetest"
)

// The tests run on a machine of the in-memory tmux server (machinetest).
type testMachine = machinetest.Machine

func newTestMachine(t *testing.T) *testMachine { return machinetest.New(t, Session) }
