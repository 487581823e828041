package loop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/internal/testmachine"
)

func TestMakeRoomRefusesANameInUse(t *testing.T) {
	mt := newTestMachine(t)
	mt.SpawnShell("dup")
	room, err := On(mt.Machine).MakeRoom("dup", false, false)
	if err == nil || !strings.Contains(err.Error(), "worker 'dup' already exists") || room.Replaced {
		t.Errorf("room %+v, error %v", room, err)
	}
	// A loop of the name whose monitor still runs (its worker was cleaned meanwhile).
	ld := ralph.DirFor(mt.Dir(), "left")
	if err := ld.Create(&ralph.State{Status: ralph.StatusRunning}); err != nil {
		t.Fatal(err)
	}
	testmachine.HoldMonitor(t, ld)
	if _, err := On(mt.Machine).MakeRoom("left", false, true); err == nil || err.Error() != "a ralph loop for 'left' is still running" {
		t.Errorf("error %v", err)
	}
}

func TestMakeRoomReplacesTheWorker(t *testing.T) {
	mt := newTestMachine(t)
	ld := mt.SpawnLoop("r", ralph.State{Status: ralph.StatusRunning, CurrentIteration: 1})
	room, err := On(mt.Machine).MakeRoom("r", true, false)
	if err != nil || !room.Replaced || room.Cleared {
		t.Fatalf("room %+v, error %v", room, err)
	}
	if ws, _ := mt.Dir().LoadWorkers(nil); ws.Get("r") != nil || ld.Exists() {
		t.Error("worker or loop left behind")
	}
}

// A new loop of the name keeps the last one's logs (their rotated parts too), unless its state
// is cleared.
func TestMakeRoomKeepsTheHistory(t *testing.T) {
	mt := newTestMachine(t)
	ld := ralph.DirFor(mt.Dir(), "h")
	if err := ld.Create(&ralph.State{Status: ralph.StatusStopped}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"iterations.log", "monitor.log", "iterations.log.1", "monitor.log.1", "iterations.jsonl.1", "screen.txt"} {
		if err := os.WriteFile(filepath.Join(ld.Path, f), []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if room, err := On(mt.Machine).MakeRoom("h", false, false); err != nil || room != (Room{}) {
		t.Fatalf("room %+v, error %v", room, err)
	}
	entries, _ := os.ReadDir(ld.Path)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if strings.Join(left, " ") != "iterations.log iterations.log.1 monitor.log monitor.log.1" {
		t.Errorf("left %q", left)
	}
	room, err := On(mt.Machine).MakeRoom("h", false, true)
	if err != nil || !room.Cleared {
		t.Fatalf("room %+v, error %v", room, err)
	}
	if _, err := os.Stat(ld.Path); !os.IsNotExist(err) {
		t.Errorf("history kept: %v", err)
	}
}
