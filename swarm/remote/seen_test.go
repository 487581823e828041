package remote

import (
	"encoding/json"
	"testing"
	"time"
)

// A worker spawned on a host is known here from its spawn: it stays among what was seen of
// the host until an answer to a question asked after it.
func TestSpawnedStaysUntilAnAnswerAskedAfterIt(t *testing.T) {
	reg := RegistryOf(t.TempDir())
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := reg.AddSpawned("h1", "w1", t0, json.RawMessage(`{"name":"w1"}`)); err != nil {
		t.Fatal(err)
	}
	if err := reg.AddSpawned("h1", "w1", t0.Add(time.Second), json.RawMessage(`{"name":"w1","cwd":"again"}`)); err != nil {
		t.Fatal(err)
	}
	s := reg.Seen("h1")
	if len(s.Spawned) != 1 || s.Spawned[0].Name != "w1" || s.At != "2026-01-02T03:04:06Z" {
		t.Fatalf("after two spawns of one name: %+v", s)
	}
	// Asked before the spawn, answered after it: the answer may not know it yet.
	if err := reg.Answered("h1", t0, t0.Add(2*time.Second), json.RawMessage(`[]`), "1.0"); err != nil {
		t.Fatal(err)
	}
	if s := reg.Seen("h1"); len(s.Spawned) != 1 {
		t.Fatalf("an answer to a question older than the spawn dropped it: %+v", s)
	}
	// Asked after it: the answer says what became of it.
	if err := reg.Answered("h1", t0.Add(3*time.Second), t0.Add(4*time.Second), json.RawMessage(`[{"name":"w1"}]`), "1.0"); err != nil {
		t.Fatal(err)
	}
	if s := reg.Seen("h1"); len(s.Spawned) != 0 || s.Version != "1.0" {
		t.Fatalf("after an answer asked after the spawn: %+v", s)
	}
}

// Another version on a host is news once per change: not again while it stays, again when it
// changes, and again after the two were the same for a while.
func TestTellVersionOncePerChange(t *testing.T) {
	reg := RegistryOf(t.TempDir())
	now := time.Now()
	steps := []struct {
		version, local string
		answered       bool
		tell           bool
	}{
		{"2.0", "1.0", false, true},
		{"2.0", "1.0", false, false},
		{"2.0", "1.0", true, false}, // an ls answer of the same version changes nothing
		{"2.1", "1.0", false, true},
		{"2.1", "1.1", false, true}, // this side changed
		{"1.1", "1.1", true, false},
		{"2.1", "1.1", false, true}, // the same difference again, after a time without
	}
	for i, st := range steps {
		if st.answered {
			_ = reg.Answered("h1", now, now, json.RawMessage(`[]`), st.version)
		}
		if st.version != st.local || !st.answered {
			if got := reg.TellVersion("h1", st.version, st.local); got != st.tell {
				t.Errorf("step %d (%s here %s): tell %v, want %v", i, st.version, st.local, got, st.tell)
			}
		}
	}
}
