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
	if err := reg.Answered("h1", t0, t0.Add(2*time.Second), json.RawMessage(`[]`)); err != nil {
		t.Fatal(err)
	}
	if s := reg.Seen("h1"); len(s.Spawned) != 1 {
		t.Fatalf("an answer to a question older than the spawn dropped it: %+v", s)
	}
	// Asked after it: the answer says what became of it.
	if err := reg.Answered("h1", t0.Add(3*time.Second), t0.Add(4*time.Second), json.RawMessage(`[{"name":"w1"}]`)); err != nil {
		t.Fatal(err)
	}
	if s := reg.Seen("h1"); len(s.Spawned) != 0 {
		t.Fatalf("after an answer asked after the spawn: %+v", s)
	}
}
