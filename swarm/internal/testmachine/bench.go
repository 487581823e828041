package testmachine

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/heartbeat"
	"github.com/swarm-dev/swarm/swarm/worker/workertest"
	"github.com/swarm-dev/swarm/tmux"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

// Bench is what a test's machine is made of. Its fields are named apart from worker.Machine's
// methods, so a test type may embed both.
type Bench struct {
	T         *testing.T
	State     *state.Dir
	Fake      *tmuxtest.Fake
	Processes *workertest.Processes
	// Warnings gets the machine's one-line warnings.
	Warnings *bytes.Buffer
}

// New is a bench over a fresh state directory and an empty in-memory tmux server.
func New(t *testing.T) *Bench {
	t.Helper()
	dir, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fake := tmuxtest.New()
	return &Bench{T: t, State: dir, Fake: fake, Processes: workertest.New(fake), Warnings: &bytes.Buffer{}}
}

// Show has the pane show screen ("" leaves it as it is).
func (b *Bench) Show(paneID, screen string) {
	b.T.Helper()
	if screen == "" {
		return
	}
	if err := b.Fake.SetScreen(paneID, screen); err != nil {
		b.T.Fatal(err)
	}
}

// PanesOf lists the argv of every pane of the session on the fake server (a keeper's, say).
func (b *Bench) PanesOf(session string) [][]string {
	var out [][]string
	for _, id := range b.Fake.PaneIDs() {
		if p, ok := b.Fake.Get(id); ok && p.Session == session {
			out = append(out, p.Spec.Argv)
		}
	}
	return out
}

// Loop gives the worker name, already spawned, a loop in state st (5 iterations unless st
// says).
func (b *Bench) Loop(name string, st ralph.State) ralph.Dir {
	b.T.Helper()
	ld := ralph.DirFor(b.State, name)
	st.WorkerName = name
	if st.MaxIterations == 0 {
		st.MaxIterations = 5
	}
	if err := ld.Create(&st); err != nil {
		b.T.Fatal(err)
	}
	return ld
}

// LoopState reads a loop's state.
func LoopState(t *testing.T, ld ralph.Dir) *ralph.State {
	t.Helper()
	st, err := ld.Load()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// HoldMonitor takes the loop's monitor lock, as a live monitor holds it, until release is
// called or the test ends.
func HoldMonitor(t *testing.T, ld ralph.Dir) (release func()) {
	t.Helper()
	l, ok, err := state.TryLock(ld.MonitorLockPath())
	if err != nil || !ok {
		t.Fatalf("cannot take the monitor lock: %v", err)
	}
	t.Cleanup(l.Unlock)
	return l.Unlock
}

// Events is the loop's iterations.log without the times.
func Events(t *testing.T, ld ralph.Dir) []string {
	t.Helper()
	data, err := os.ReadFile(ld.IterationsLog())
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if _, ev, ok := strings.Cut(l, " "); ok {
			out = append(out, ev)
		}
	}
	return out
}

// Eventually polls cond until it holds or ten seconds have passed.
func Eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// EndAtStart has every program started in the session end at once (exit 0): a keeper that
// found nothing to do.
func (b *Bench) EndAtStart(session string) {
	b.Fake.OnStart = func(p *tmuxtest.FakePane, s tmux.Spec) {
		if s.Session == session {
			p.Exit(0)
		}
	}
}

// StartHeartbeat gives the worker name an active hourly heartbeat begun at since.
func (b *Bench) StartHeartbeat(name string, since time.Time) heartbeat.Store {
	b.T.Helper()
	s := heartbeat.StoreFor(b.State)
	_, err := s.Update(name, func(*heartbeat.State) (*heartbeat.State, error) {
		return heartbeat.New(name, time.Hour, 0, "continue", since), nil
	})
	if err != nil {
		b.T.Fatal(err)
	}
	return s
}

// SyncBuffer is a buffer written by one goroutine (a signal handler, a daemon's) and read by
// the test's.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
