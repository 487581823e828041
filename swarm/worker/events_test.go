package worker

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/state/eventlog"
)

// told are the state directory's events, each as "kind worker how reason detail".
func (mt *testMachine) told() []string {
	mt.T.Helper()
	all, err := eventlog.Log{Root: mt.dir.Root}.Since(0, 0)
	if err != nil {
		mt.T.Fatal(err)
	}
	var out []string
	for _, e := range all {
		out = append(out, strings.Join(strings.Fields(strings.Join([]string{e.Kind, e.Worker, e.How, e.Reason, e.Detail}, " ")), " "))
	}
	return out
}

func (mt *testMachine) wantTold(want ...string) {
	mt.T.Helper()
	if got := mt.told(); !reflect.DeepEqual(got, want) {
		mt.T.Errorf("events:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestAWorkerThatEndsByItselfIsToldOnce(t *testing.T) {
	mt := newTestMachine(t)
	w := mt.spawn("w1", "")
	mt.wantTold("worker.spawned w1 sh")
	if err := mt.Fake.Exit(w.Tmux.PaneID, 4); err != nil {
		t.Fatal(err)
	}
	// Every look finds it ended; the first records it so and tells it.
	for range 3 {
		if _, _, err := mt.LoadAll(); err != nil {
			t.Fatal(err)
		}
		if _, _, err := mt.Load("w1"); err != nil {
			t.Fatal(err)
		}
	}
	mt.wantTold("worker.spawned w1 sh", "worker.ended w1 exited exit 4")
	if rec := mt.record("w1"); rec.Status != state.StatusStopped || rec.ExitCode == nil || *rec.ExitCode != 4 {
		t.Errorf("record %+v, want stopped with exit 4", rec)
	}
	// Killed afterwards, it does not end again.
	if err := mt.Stop(w, time.Second); err != nil {
		t.Fatal(err)
	}
	mt.wantTold("worker.spawned w1 sh", "worker.ended w1 exited exit 4")
}

func TestAKilledWorkerIsToldOnce(t *testing.T) {
	mt := newTestMachine(t)
	a, b := mt.spawn("a", ""), mt.spawn("b", "")
	for _, err := range mt.StopAll([]*state.Worker{a, b}, time.Second) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := mt.Stop(a, time.Second); err != nil {
		t.Fatal(err)
	}
	if _, _, err := mt.LoadAll(); err != nil {
		t.Fatal(err)
	}
	mt.wantTold("worker.spawned a sh", "worker.spawned b sh", "worker.ended a killed exit 143", "worker.ended b killed exit 143")
}

// A loop's worker is no worker that ended by itself when a look finds its pane dead: the loop
// starts its next agent there. Its end is recorded by a kill, which finds it ended.
func TestALoopsWorkerIsNotEndedByALook(t *testing.T) {
	mt := newTestMachine(t)
	w, err := mt.Spawn(SpawnOptions{Name: "loop", Tmux: true, Argv: []string{"sh"}, Cwd: t.TempDir(),
		Metadata: map[string]any{"ralph": true}})
	if err != nil {
		t.Fatal(err)
	}
	// Between two agents its pane is dead: that is no end of the worker.
	if err := mt.Fake.Exit(w.Tmux.PaneID, 0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := mt.LoadAll(); err != nil {
		t.Fatal(err)
	}
	mt.wantTold("worker.spawned loop sh")
	if err := mt.Stop(w, time.Second); err != nil {
		t.Fatal(err)
	}
	mt.wantTold("worker.spawned loop sh", "worker.ended loop exited exit 0")
}

func TestARespawnedWorkerEndsAndStartsAgain(t *testing.T) {
	mt := newTestMachine(t)
	w := mt.spawn("w1", "")
	if err := mt.Fake.Exit(w.Tmux.PaneID, 3); err != nil {
		t.Fatal(err)
	}
	w, _, err := mt.Load("w1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mt.Respawn(w, false, false); err != nil {
		t.Fatal(err)
	}
	mt.wantTold("worker.spawned w1 sh", "worker.ended w1 exited exit 3", "worker.spawned w1 sh")
}
