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
func StopHeartbeat(h *worker.Host, name string) {
	hb, _ := heartbeat.StoreFor(h.Dir()).Update(name, func(cur *heartbeat.State) (*heartbeat.State, error) {
		if cur == nil || (cur.Status != heartbeat.Active && cur.Status != heartbeat.Paused) {
			return nil, nil
		}
		cur.Status = heartbeat.Stopped
		return cur, nil
	})
	if hb != nil {
		Wake(h)
	}
}

// Wake has a running Regent look at the heartbeats (and the loops) again now.
func Wake(h *worker.Host) {
	if rc := NewClient(h.Dir()); rc.Alive() {
		_ = rc.Wake()
	}
}

// CleanWorker stops the worker's heartbeat and removes what it left (see worker.Host.Clean).
func CleanWorker(h *worker.Host, w *state.Worker, what worker.CleanWhat) error {
	StopHeartbeat(h, w.Name)
	return h.Clean(w, what)
}
