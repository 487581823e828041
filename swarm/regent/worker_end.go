package regent

import (
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/heartbeat"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// What ending a worker for good ends besides its processes: the heartbeat the Regent sends it.

// StopHeartbeat stops the worker's heartbeat, if it has one, when the worker is killed or
// cleaned: nothing is left nudging a worker that is gone. A running Regent is woken to see
// it, and leaves if nothing needs it any more.
func StopHeartbeat(m *worker.Machine, name string) {
	hb, _ := heartbeat.StoreFor(m.Dir()).Update(name, func(cur *heartbeat.State) (*heartbeat.State, error) {
		if cur == nil || (cur.Status != heartbeat.Active && cur.Status != heartbeat.Paused) {
			return nil, nil
		}
		cur.Status = heartbeat.Stopped
		return cur, nil
	})
	if hb != nil {
		Wake(m)
	}
}

// Wake has a running Regent look at the heartbeats (and the loops) again now.
func Wake(m *worker.Machine) {
	if rc := NewClient(m.Dir()); rc.Alive() {
		_ = rc.Wake()
	}
}

// CleanWorker stops the worker's heartbeat and removes what it left (see worker.Machine.Clean).
func CleanWorker(m *worker.Machine, w *state.Worker, what worker.CleanWhat) error {
	StopHeartbeat(m, w.Name)
	return m.Clean(w, what)
}
