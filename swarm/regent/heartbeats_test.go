package regent

import (
	"testing"
	"time"
)

// The hidden commands an older swarm's heartbeat runner ran hand the heartbeats to the Regent.
func TestHandOverHeartbeats(t *testing.T) {
	mt := newTestMachine(t)
	if err := HandOverHeartbeats(mt.Machine, true); err != nil || len(mt.PanesOf(Session)) != 0 {
		t.Fatalf("no heartbeat active: %v, %d keepers started", err, len(mt.PanesOf(Session)))
	}
	mt.SpawnShell("w")
	mt.StartHeartbeat("w", time.Now())
	if err := HandOverHeartbeats(mt.Machine, false); err != nil || len(mt.PanesOf(Session)) != 1 {
		t.Errorf("a heartbeat active: %v, %d keepers started, want the Regent's", err, len(mt.PanesOf(Session)))
	}
}
