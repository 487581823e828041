package remote

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestReceiptSaysHowASpawnWent(t *testing.T) {
	root := t.TempDir()
	id := NewSpawnID()
	if err := BeginSpawn(root, id, "w1"); err != nil {
		t.Fatal(err)
	}
	if r, err := AskSpawn(root, id); err != nil || r.State != SpawnSpawning || r.Worker != "w1" {
		t.Fatalf("while at it: %+v, %v", r, err)
	}
	if err := EndSpawn(root, id, true, ""); err != nil {
		t.Fatal(err)
	}
	if r, _ := AskSpawn(root, id); r.State != SpawnStarted {
		t.Fatalf("after it started: %+v", r)
	}
	refused := NewSpawnID()
	_ = BeginSpawn(root, refused, "w1")
	_ = EndSpawn(root, refused, false, "a worker named 'w1' already exists")
	if r, _ := AskSpawn(root, refused); r.State != SpawnRefused || r.Said != "a worker named 'w1' already exists" {
		t.Fatalf("refused: %+v", r)
	}
}

// A spawn asked for before it arrived is given up: arriving later, it starts nothing, so "not
// started" stays true.
func TestASpawnAskedForBeforeItArrivesIsGivenUp(t *testing.T) {
	root := t.TempDir()
	id := NewSpawnID()
	if r, err := AskSpawn(root, id); err != nil || r.State != SpawnGivenUp {
		t.Fatalf("asked first: %+v, %v", r, err)
	}
	if err := BeginSpawn(root, id, "w1"); !errors.Is(err, ErrGivenUp) {
		t.Fatalf("the late spawn began: %v", err)
	}
	if r, _ := AskSpawn(root, id); r.State != SpawnGivenUp {
		t.Fatalf("asked again: %+v", r)
	}
}

// A spawn whose swarm died before it said how it went is told as such, not as still going.
func TestASpawnWhoseSwarmDiedIsInterrupted(t *testing.T) {
	root := t.TempDir()
	id := NewSpawnID()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	path, _ := receiptPath(root, id)
	if _, err := createReceipt(path, Receipt{ID: id, State: SpawnSpawning, PID: dead.Process.Pid}); err != nil {
		t.Fatal(err)
	}
	if r, _ := AskSpawn(root, id); r.State != SpawnInterrupted {
		t.Fatalf("a spawn whose process is gone: %+v", r)
	}
}

func TestReceiptsAreNamedSafelyAndForgottenAfterAWeek(t *testing.T) {
	root := t.TempDir()
	for _, bad := range []string{"", "../x", "ABC", "0123"} {
		if _, err := AskSpawn(root, bad); err == nil {
			t.Errorf("AskSpawn(%q) accepted", bad)
		}
	}
	old := NewSpawnID()
	_ = BeginSpawn(root, old, "w1")
	path, _ := receiptPath(root, old)
	week := time.Now().Add(-8 * 24 * time.Hour)
	_ = os.Chtimes(path, week, week)
	_ = BeginSpawn(root, NewSpawnID(), "w2")
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a receipt of last week is still there: %v", err)
	}
	if n, _ := filepath.Glob(filepath.Join(root, "spawns", "*")); len(n) != 1 {
		t.Errorf("receipts left: %v", n)
	}
}
