package regent

import (
	"time"

	"github.com/swarm-dev/swarm/swarm/heartbeat"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// The Regent sends the heartbeats too (its daemon's heartbeats.go): a command that changed one
// wakes it, and one that an older swarm's heartbeat runner started hands them over to it.

// Wake has a running Regent look at the heartbeats (and the loops) again now.
func Wake(m *worker.Machine) {
	if rc := NewClient(m.Dir()); rc.Alive() {
		_ = rc.Wake()
	}
}

// heartbeatsActive reports whether some heartbeat of the state directory is active.
func heartbeatsActive(m *worker.Machine) bool {
	return heartbeat.StoreFor(m.Dir()).AnyActive()
}

// HandOverHeartbeats is what the hidden `swarm heartbeat __keep` and `__run` do now that the
// Regent sends the heartbeats. They are what an older swarm started its heartbeat runner with,
// and that swarm's processes outlive an upgrade of the executable: tmux revives the keeper's
// window with the new executable (an unknown command would die and be revived every second),
// and a keeper still running starts its runner with it. Both hand the heartbeats to the
// Regent: the keeper closes its window, so tmux revives it no more; the runner (keeper false)
// stays while the Regent runs, so the old keeper does not start it again every second.
func HandOverHeartbeats(m *worker.Machine, keeper bool) error {
	if keeper {
		RemoveOwnPane(m)
	}
	if !heartbeatsActive(m) {
		return nil
	}
	if err := Ensure(m); err != nil {
		return err
	}
	for rc := NewClient(m.Dir()); !keeper && rc.Alive(); {
		time.Sleep(time.Second)
	}
	return nil
}
