package worker

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/state"
)

func TestStopEndsTheGroupAndRecordsTheExit(t *testing.T) {
	mt := newTestMachine(t)
	w := mt.spawn("w1", "last words")
	if err := mt.Stop(w, time.Second); err != nil {
		t.Fatal(err)
	}
	if kills := mt.Processes.Kills(); len(kills) != 1 || kills[0] != w.PID {
		t.Errorf("kills %v, want the worker's group %d", kills, w.PID)
	}
	rec := mt.record("w1")
	if rec.Status != state.StatusStopped || rec.ExitCode == nil || *rec.ExitCode != 143 {
		t.Fatalf("record after stop: %+v", rec)
	}
	if _, ok := mt.Fake.Get(w.Tmux.PaneID); ok {
		t.Error("the window is still there")
	}
	if kept, ok := mt.KeptScreen("w1"); !ok || len(kept) != 1 || kept[0] != "last words" {
		t.Errorf("kept screen %q, %v", kept, ok)
	}
	if lines, err := mt.ScreenLines(rec, 0, "stdout"); err != nil || len(lines) != 1 || lines[0] != "last words" {
		t.Errorf("screen lines after the end %q, %v: want the kept screen", lines, err)
	}
}

// Many workers at once: every group is ended, every one's exit and screen kept, each window
// removed, and all recorded stopped; one whose window already ended is only recorded, and a
// process outside a window is ended by the worker's identity.
func TestStopAllEndsEveryWorker(t *testing.T) {
	mt := newTestMachine(t)
	a, b, done := mt.spawn("a", "a's words"), mt.spawn("b", "b's words"), mt.spawn("done", "")
	if err := mt.Fake.Exit(done.Tmux.PaneID, 4); err != nil {
		t.Fatal(err)
	}
	mt.Processes.SetOutside(b.IDTag(), []int{4242})
	for _, err := range mt.StopAll([]*state.Worker{a, b, done}, time.Second) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if kills := mt.Processes.Kills(); len(kills) != 2 || kills[0] != a.PID || kills[1] != b.PID {
		t.Errorf("kills %v, want the groups of a and b (%d, %d)", kills, a.PID, b.PID)
	}
	for name, code := range map[string]int{"a": 143, "b": 143, "done": 4} {
		rec := mt.record(name)
		if rec.Status != state.StatusStopped || rec.ExitCode == nil || *rec.ExitCode != code {
			t.Errorf("%s after stop: %+v, want stopped with %d", name, rec, code)
		}
		if _, ok := mt.Fake.Get(rec.Tmux.PaneID); ok {
			t.Errorf("%s's window is still there", name)
		}
	}
	if kept, ok := mt.KeptScreen("b"); !ok || len(kept) != 1 || kept[0] != "b's words" {
		t.Errorf("b's kept screen %q, %v", kept, ok)
	}
	if left := mt.Processes.Tagged(b.IDTag()); len(left) != 0 {
		t.Errorf("b's process outside its window still runs: %v", left)
	}
}

func TestReconcileTellsStatusFromTmuxAndProcesses(t *testing.T) {
	mt := newTestMachine(t)
	live := mt.spawn("live", "")
	done := mt.spawn("done", "")
	gone := mt.spawn("gone", "")
	if err := mt.Fake.Exit(done.Tmux.PaneID, 4); err != nil {
		t.Fatal(err)
	}
	if err := mt.Fake.KillPane(gone.Tmux.PaneID); err != nil {
		t.Fatal(err)
	}
	mt.Processes.SetOutside(gone.IDTag(), []int{4242})
	list, _, err := mt.LoadAll()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, w := range list {
		got[w.Name] = w.Status
	}
	want := map[string]string{live.Name: state.StatusRunning, done.Name: state.StatusStopped, gone.Name: state.StatusOrphaned}
	for name, status := range want {
		if got[name] != status {
			t.Errorf("%s: %s, want %s", name, got[name], status)
		}
	}
	w, _, err := mt.Load("done")
	if err != nil || w.ExitCode == nil || *w.ExitCode != 4 {
		t.Errorf("Load(done) = %+v, %v; want its exit code 4", w, err)
	}
}

func TestLoadAndTargetsSayWhichNameIsMissing(t *testing.T) {
	mt := newTestMachine(t)
	mt.spawn("a", "")
	for _, err := range []error{
		func() error { _, _, err := mt.Load("ghost"); return err }(),
		func() error { _, _, err := mt.Targets([]string{"a", "ghost"}, false, nil); return err }(),
		func() error { _, err := mt.KillTargets([]string{"ghost"}, false); return err }(),
	} {
		if !errors.Is(err, ErrNoWorker) || err.Error() != "no worker named 'ghost'" {
			t.Errorf("error %v, want no worker named 'ghost'", err)
		}
	}
	if _, _, err := mt.Targets(nil, false, nil); err == nil || err.Error() != "no worker name given (or use --all)" {
		t.Errorf("no names: %v", err)
	}
	ws, _, err := mt.Targets(nil, true, func(w *state.Worker) bool { return w.Name == "a" })
	if err != nil || len(ws) != 1 || ws[0].Name != "a" {
		t.Errorf("Targets(all) = %v, %v", ws, err)
	}
}

func TestCleanRemovesTheRecordAndFiles(t *testing.T) {
	mt := newTestMachine(t)
	w := mt.spawn("w1", "")
	if err := mt.Stop(w, time.Second); err != nil {
		t.Fatal(err)
	}
	if err := mt.Clean(w, Everything); err != nil {
		t.Fatal(err)
	}
	if mt.record("w1") != nil {
		t.Error("the record is still there")
	}
	if _, ok := mt.KeptScreen("w1"); ok {
		t.Error("the kept screen is still there")
	}
}

func TestRespawnKeepsTheIdentityAndTags(t *testing.T) {
	mt := newTestMachine(t)
	w, err := mt.Spawn(SpawnOptions{Name: "w1", Tmux: true, Argv: []string{"sh"}, Cwd: t.TempDir(), Tags: []string{"t1"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := mt.Fake.Exit(w.Tmux.PaneID, 3); err != nil {
		t.Fatal(err)
	}
	w2, err := mt.Respawn(w, false, false)
	if err != nil {
		t.Fatal(err)
	}
	rec := mt.record("w1")
	if w2.ID != w.ID || rec.ID != w.ID || rec.Tmux.PaneID == w.Tmux.PaneID || len(rec.Tags) != 1 || rec.Tags[0] != "t1" {
		t.Errorf("record after respawn: %+v", rec)
	}
}

func TestSpawnRefusesADuplicateAndLeavesNothing(t *testing.T) {
	mt := newTestMachine(t)
	mt.spawn("dup", "")
	_, err := mt.Spawn(SpawnOptions{Name: "dup", Tmux: true, Argv: []string{"sh"}, Cwd: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "worker 'dup' already exists") {
		t.Fatalf("error %v", err)
	}
	if n := len(mt.Fake.PaneIDs()); n != 1 {
		t.Errorf("%d panes, want only the first worker's", n)
	}
}
