package remote

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/state/eventlog"
)

// A host that stops answering is told once, however many tries fail, and again when it
// answers: the fleet view's changes, not its looks.
func TestAHostsReachIsToldOncePerChange(t *testing.T) {
	root := t.TempDir()
	reg := RegistryOf(root)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	down := errors.New("ssh: connect to host h1 port 22: Connection refused")
	steps := []func() error{
		func() error { return reg.Failed("h1", t0, down) },
		func() error { return reg.Failed("h1", t0.Add(time.Minute), down) },
		func() error { return reg.Answered("h1", t0, t0.Add(2*time.Minute), json.RawMessage(`[]`), "1.0") },
		func() error { return reg.Reached("h1", t0.Add(3*time.Minute)) },
		func() error { return reg.Failed("h1", t0.Add(4*time.Minute), down) },
		func() error { return reg.AddSpawned("h1", "w1", t0.Add(5*time.Minute), json.RawMessage(`{}`)) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	all, err := eventlog.Log{Root: root}.Since(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range all {
		got = append(got, e.Kind+" "+e.Detail+" "+e.Reason)
	}
	want := []string{"host.unreachable h1 " + down.Error(), "host.back h1 ", "host.unreachable h1 " + down.Error(), "host.back h1 "}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}
