package daemon

import (
	"context"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/heartbeat"
	"github.com/swarm-dev/swarm/swarm/internal/testmachine"
	"github.com/swarm-dev/swarm/swarm/regent"
)

// A beat that is due is typed into its worker and recorded; the next is due an interval
// later. A heartbeat whose worker is gone stops. The clock is the caller's.
func TestBeatDueSendsAndRecords(t *testing.T) {
	mt := newTestMachine(t)
	w := mt.SpawnShell("w")
	since := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	s := mt.StartHeartbeat("w", since)
	mt.StartHeartbeat("gone", since)
	now := since.Add(time.Hour + time.Second)
	next := beatDue(mt.Machine, s, now, nil)
	if !next.Equal(now.Add(time.Hour)) {
		t.Errorf("next beat at %v, want %v", next, now.Add(time.Hour))
	}
	in := mt.Fake.Inputs()
	if len(in) != 3 || in[0].Text != "C-u" || !in[1].Paste || in[1].Text != "continue" || in[2].Text != "Enter" ||
		in[1].PaneID != w.Tmux.PaneID {
		t.Errorf("inputs %+v, want clear, paste of the message, Enter", in)
	}
	if hb, _ := s.Load("w"); hb.BeatCount != 1 || hb.Status != heartbeat.Active {
		t.Errorf("w's heartbeat after the beat: %+v", hb)
	}
	if hb, _ := s.Load("gone"); hb.Status != heartbeat.Stopped {
		t.Errorf("gone's heartbeat: %+v", hb)
	}
	// Not due again before its time.
	if next := beatDue(mt.Machine, s, now.Add(time.Minute), nil); !next.Equal(now.Add(time.Hour)) || len(mt.Fake.Inputs()) != 3 {
		t.Errorf("a second look a minute later: next %v, inputs %d", next, len(mt.Fake.Inputs()))
	}
}

// An active heartbeat keeps the Regent, as a loop does; it may leave once none is active.
func TestAnActiveHeartbeatKeepsTheRegent(t *testing.T) {
	mt := newTestMachine(t)
	mt.SpawnShell("w")
	s := mt.StartHeartbeat("w", time.Now())
	r := newDaemon(mt.Machine, io.Discard)
	defer r.stop()
	lock, ok, err := state.TryLock(regent.FilesOf(mt.Dir()).Lock)
	if err != nil || !ok {
		t.Fatal(err)
	}
	defer lock.Unlock()
	if r.unneeded() || r.mayLeave(lock) {
		t.Fatal("the Regent may leave while a heartbeat is active")
	}
	if _, err := s.Update("w", func(cur *heartbeat.State) (*heartbeat.State, error) {
		cur.Status = heartbeat.Paused
		return cur, nil
	}); err != nil {
		t.Fatal(err)
	}
	if !r.mayLeave(lock) {
		t.Error("the Regent may not leave with no heartbeat active and no loop")
	}
	if state.IsLocked(regent.FilesOf(mt.Dir()).Lock) {
		t.Error("the Regent's lock is still held after it may leave")
	}
}

// While another process (a runner of an older swarm) holds the runner lock, the Regent does
// not beat; it does once that lets go. The goroutine ends with its context, letting the lock go.
func TestTheRegentBeatsOnlyUnderTheRunnerLock(t *testing.T) {
	mt := newTestMachine(t)
	mt.SpawnShell("w")
	s := mt.StartHeartbeat("w", time.Now().Add(-2*time.Hour))
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	older, ok, err := state.TryLock(s.RunnerLock())
	if err != nil || !ok {
		t.Fatal(err)
	}
	var log testmachine.SyncBuffer
	r := newDaemon(mt.Machine, &log)
	defer r.stop()
	ctx, stopBeating := context.WithCancel(context.Background())
	done := make(chan struct{})
	go r.beat(ctx, done)
	testmachine.Eventually(t, "the Regent to see the runner lock held", func() bool {
		return strings.Contains(log.String(), "another process sends the heartbeats")
	})
	if n := len(mt.Fake.Inputs()); n != 0 {
		t.Errorf("typed %d inputs while another process held the runner lock", n)
	}
	older.Unlock()
	r.wakeAll()
	testmachine.Eventually(t, "the beat", func() bool { return len(mt.Fake.Inputs()) == 3 })
	if !state.IsLocked(s.RunnerLock()) {
		t.Error("the Regent beats without the runner lock")
	}
	stopBeating()
	<-done
	if state.IsLocked(s.RunnerLock()) {
		t.Error("the runner lock outlives the beating")
	}
}

// A beat that cannot be recorded (a full disk) is said once until one is recorded again, not
// at every beat.
func TestABeatNotRecordedIsSaidOnce(t *testing.T) {
	mt := newTestMachine(t)
	var log strings.Builder
	r := newDaemon(mt.Machine, &log)
	full := &os.PathError{Op: "write", Path: "w.json.tmp-1", Err: syscall.ENOSPC}
	r.beatRecorded("w", full)
	r.beatRecorded("w", &os.PathError{Op: "write", Path: "w.json.tmp-2", Err: syscall.ENOSPC})
	r.beatRecorded("v", full)
	if n := strings.Count(log.String(), "cannot record the heartbeat"); n != 1 {
		t.Errorf("said %d times:\n%s", n, log.String())
	}
	r.beatRecorded("w", nil)
	r.beatRecorded("w", nil)
	r.beatRecorded("w", full)
	if n := strings.Count(log.String(), "cannot record the heartbeat"); n != 2 || strings.Count(log.String(), "recorded again") != 1 {
		t.Errorf("log:\n%s", log.String())
	}
}
