package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func openTemp(t *testing.T) *Dir {
	t.Helper()
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// failOnWarn turns any recovered-corruption report into a test failure.
func failOnWarn(t *testing.T) func(error) {
	return func(err error) { t.Errorf("unexpected warning: %v", err) }
}

func TestUpdateWorkersConcurrent(t *testing.T) {
	d := openTemp(t)
	const n = 32
	start := make(chan struct{})
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs <- d.UpdateWorkers(failOnWarn(t), func(ws *Workers) error {
				ws.Put(&Worker{Name: fmt.Sprintf("w%02d", i), Status: StatusRunning, Started: time.Now().UTC()})
				return nil
			})
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	ws, err := d.LoadWorkers(failOnWarn(t))
	if err != nil {
		t.Fatal(err)
	}
	list := ws.List()
	if len(list) != n {
		t.Fatalf("%d workers after %d concurrent updates", len(list), n)
	}
	for i := range n {
		if ws.Get(fmt.Sprintf("w%02d", i)) == nil {
			t.Errorf("worker w%02d lost", i)
		}
	}
	assertOnly(t, d.Root, "logs", "ralph", "state.json", "state.lock")
	assertMode(t, d.statePath(), 0o600)
}

func TestUpdateWorkersErrorKeepsState(t *testing.T) {
	d := openTemp(t)
	if err := d.UpdateWorkers(failOnWarn(t), func(ws *Workers) error {
		ws.Put(&Worker{Name: "a"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := d.UpdateWorkers(failOnWarn(t), func(ws *Workers) error {
		ws.Delete("a")
		ws.Put(&Worker{Name: "b"})
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("UpdateWorkers returned %v, want the callback's error", err)
	}
	ws, err := d.LoadWorkers(failOnWarn(t))
	if err != nil {
		t.Fatal(err)
	}
	if ws.Get("a") == nil || ws.Get("b") != nil {
		t.Fatalf("a failed update was saved: %v", names(ws))
	}
}

func names(ws *Workers) []string {
	var out []string
	for _, w := range ws.List() {
		out = append(out, w.Name)
	}
	return out
}

func TestLoadWorkersMissingAndNameless(t *testing.T) {
	d := openTemp(t)
	ws, err := d.LoadWorkers(failOnWarn(t))
	if err != nil || len(ws.List()) != 0 {
		t.Fatalf("missing state: %v, %v", names(ws), err)
	}
	if err := os.WriteFile(d.statePath(), []byte(`{"workers": [null, {"name": ""}, {"name": "ok"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ws, err = d.LoadWorkers(failOnWarn(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := names(ws); len(got) != 1 || got[0] != "ok" {
		t.Fatalf("workers %q, want only the named one", got)
	}
}

func TestWorkersListOrder(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	ws := &Workers{byName: map[string]*Worker{}}
	ws.Put(&Worker{Name: "late", Started: t0.Add(time.Minute)})
	ws.Put(&Worker{Name: "b", Started: t0})
	ws.Put(&Worker{Name: "a", Started: t0})
	if got := strings.Join(names(ws), ","); got != "a,b,late" {
		t.Fatalf("order %s, want start time then name", got)
	}
}

const corruptState = `{"workers": [ {"name": "x", "status": `

func TestLoadWorkersCorrupt(t *testing.T) {
	d := openTemp(t)
	if err := os.WriteFile(d.statePath(), []byte(corruptState), 0o600); err != nil {
		t.Fatal(err)
	}
	var warnings []error
	warn := func(err error) { warnings = append(warnings, err) }

	ws, err := d.LoadWorkers(warn)
	if err != nil {
		t.Fatalf("LoadWorkers on a corrupt file: %v", err)
	}
	if len(ws.List()) != 0 {
		t.Fatalf("workers %v from a corrupt file", names(ws))
	}
	if len(warnings) != 1 {
		t.Fatalf("%d warnings, want 1: %v", len(warnings), warnings)
	}
	var ce *CorruptError
	if !errors.As(warnings[0], &ce) || !IsCorrupt(warnings[0]) {
		t.Fatalf("warning %T %v is not a *CorruptError", warnings[0], warnings[0])
	}
	if ce.Path != d.statePath() || ce.Err == nil {
		t.Fatalf("CorruptError %+v", ce)
	}
	moved, _ := filepath.Glob(d.statePath() + ".corrupt-*")
	if len(moved) != 1 || moved[0] != ce.MovedTo {
		t.Fatalf("set-aside files %q, error says %q", moved, ce.MovedTo)
	}
	if got := readString(t, ce.MovedTo); got != corruptState {
		t.Fatalf("set-aside file holds %q", got)
	}
	if _, err := os.Stat(d.statePath()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("corrupt state.json still in place (stat: %v)", err)
	}
	for _, want := range []string{d.statePath(), ce.MovedTo, "started afresh"} {
		if !strings.Contains(ce.Error(), want) {
			t.Errorf("message %q lacks %q", ce.Error(), want)
		}
	}

	// Once set aside, the corruption is not reported again.
	if _, err := d.LoadWorkers(warn); err != nil {
		t.Fatal(err)
	}
	if err := d.UpdateWorkers(warn, func(ws *Workers) error {
		ws.Put(&Worker{Name: "after"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 {
		t.Fatalf("corruption reported %d times", len(warnings))
	}
	ws, err = d.LoadWorkers(warn)
	if err != nil || ws.Get("after") == nil {
		t.Fatalf("state after recovery: %v, %v", names(ws), err)
	}
}

func TestWorkerOwnsOnlyItsOwnPane(t *testing.T) {
	w := &Worker{ID: "id-1"}
	if !w.Owns("id-1") || w.Owns("id-2") || w.Owns("") {
		t.Error("a worker with an ID owns exactly the pane that carries it")
	}
	if old := (&Worker{}); !old.Owns("") || !old.Owns("id-2") {
		t.Error("a record without an ID trusts its pane ID")
	}
	if got := w.IDTag(); got != "SWARM_WORKER_ID=id-1" {
		t.Errorf("IDTag = %q", got)
	}
}
