package worker

import "github.com/swarm-dev/swarm/swarm/heartbeat"

// What ending a worker for good ends besides its processes: its heartbeat.

// StopHeartbeat stops the worker's heartbeat, if it has one, when the worker is killed or
// cleaned: nothing is left nudging a worker that is gone. It reports whether it stopped one:
// the Regent that sends the heartbeats is then to be woken to see it (and to leave if nothing
// needs it any more), which is the caller's to do, as the worker lifecycle stands below the
// Regent and never asks it anything.
func (m *Machine) StopHeartbeat(name string) bool {
	hb, _ := heartbeat.StoreFor(m.Dir()).Update(name, func(cur *heartbeat.State) (*heartbeat.State, error) {
		if cur == nil || (cur.Status != heartbeat.Active && cur.Status != heartbeat.Paused) {
			return nil, nil
		}
		cur.Status = heartbeat.Stopped
		return cur, nil
	})
	return hb != nil
}
