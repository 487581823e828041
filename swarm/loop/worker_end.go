package loop

import (
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// A loop's worker ended for good takes its heartbeat with it, and the Regent that sent it is
// told (see worker.Machine.StopHeartbeat).

// stopHeartbeat stops the worker's heartbeat, and wakes the Regent when there was one.
func stopHeartbeat(m *worker.Machine, name string) {
	if m.StopHeartbeat(name) {
		regent.Wake(m)
	}
}

// cleanWorker stops the worker's heartbeat and removes what it left (see worker.Machine.Clean).
func cleanWorker(m *worker.Machine, w *state.Worker, what worker.CleanWhat) error {
	stopHeartbeat(m, w.Name)
	return m.Clean(w, what)
}
