package swarm

import (
	"os"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/heartbeat"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/tmux"
)

// holdKeeperLock takes the keeper's lock as a running keeper holds it.
func holdKeeperLock(t *testing.T, s heartbeat.Store) *state.Lock {
	t.Helper()
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	l, ok, err := state.TryLock(s.KeeperLock())
	if err != nil || !ok {
		t.Fatalf("cannot take the keeper's lock: %v", err)
	}
	t.Cleanup(l.Unlock)
	return l
}

func TestKeeperWithItsWindowServes(t *testing.T) {
	te := newTestEnv(t)
	s := heartbeat.StoreFor(te.Dir())
	holdKeeperLock(t, s)
	if _, err := te.fake.NewWindow(tmux.Spec{Session: regent.Session, Window: runnerWindow, Argv: []string{"swarm"}}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if keeperLeaving(te.env, s) {
		t.Error("a keeper in its window was taken for one leaving")
	}
	if time.Since(start) > time.Second {
		t.Error("a keeper in its window was waited for")
	}
}

func TestKeeperWhoseWindowIsGoneIsWaitedFor(t *testing.T) {
	te := newTestEnv(t)
	s := heartbeat.StoreFor(te.Dir())
	l := holdKeeperLock(t, s)
	// Hung up by the closed window, it ends a moment later.
	go func() { time.Sleep(100 * time.Millisecond); l.Unlock() }()
	if !keeperLeaving(te.env, s) {
		t.Error("a keeper whose window is gone was taken to serve the heartbeats")
	}
	if state.IsLocked(s.KeeperLock()) {
		t.Error("returned before the leaving keeper had gone")
	}
}
