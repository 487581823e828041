package state

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Records rebuilt after a corrupt state file was set aside are saved together with a record
// another command saved meanwhile (a spawn, under the lock), not over it.
func TestRebuiltRecordsKeepARecordSavedMeanwhile(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.statePath(), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	d.Rebuild = func() []*Worker {
		// While the records are rebuilt (a look through every process), a spawn saves its own.
		err := d.UpdateWorkers(nil, func(ws *Workers) error { ws.Put(&Worker{Name: "new", Status: StatusRunning}); return nil })
		if err != nil {
			t.Error(err)
		}
		return []*Worker{{Name: "found", Status: StatusRunning}}
	}
	if _, err := d.LoadWorkers(func(error) {}); err != nil {
		t.Fatal(err)
	}
	d.Rebuild = nil
	ws, err := d.LoadWorkers(nil)
	if err != nil {
		t.Fatal(err)
	}
	if ws.Get("new") == nil || ws.Get("found") == nil {
		t.Errorf("records saved: %v, want new and found", names(ws))
	}
}

// A directory where the state file belongs is set aside like a corrupt file, by every reader,
// and the records rebuilt: a spawn, a kill and a loop's driver all go on.
func TestADirectoryInPlaceOfTheStateFile(t *testing.T) {
	readers := map[string]func(d *Dir, warn func(error)) (*Worker, error){
		"LoadWorkers": func(d *Dir, warn func(error)) (*Worker, error) {
			ws, err := d.LoadWorkers(warn)
			if err != nil {
				return nil, err
			}
			return ws.Get("found"), nil
		},
		"UpdateWorkers": func(d *Dir, warn func(error)) (w *Worker, err error) {
			err = d.UpdateWorkers(warn, func(ws *Workers) error { w = ws.Get("found"); return nil })
			return w, err
		},
		"SharedWorker": func(d *Dir, warn func(error)) (*Worker, error) { return d.SharedWorker("found", warn) },
	}
	for name, read := range readers {
		d, err := Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(d.statePath(), 0o700); err != nil {
			t.Fatal(err)
		}
		d.Rebuild = func() []*Worker { return []*Worker{{Name: "found", Status: StatusRunning}} }
		var told error
		w, err := read(d, func(err error) { told = err })
		if err != nil || w == nil {
			t.Errorf("%s: %v, %v; want the rebuilt record", name, w, err)
			continue
		}
		if !IsCorrupt(told) || !strings.Contains(told.Error(), "it is a directory, not a file") {
			t.Errorf("%s told %v", name, told)
		}
		if fi, err := os.Stat(d.statePath()); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: state file after: %v, %v", name, fi, err)
		}
		if moved, _ := filepath.Glob(d.statePath() + ".corrupt-*"); len(moved) != 1 {
			t.Errorf("%s: set aside %v", name, moved)
		}
	}
	// Noting an agent's start finds the rebuilt record too.
	d, _ := Open(t.TempDir())
	_ = os.Mkdir(d.statePath(), 0o700)
	d.Rebuild = func() []*Worker { return []*Worker{{Name: "found", Status: StatusRunning}} }
	if err := d.NoteWorkerStart("found", func(w *Worker) error { w.PID = 7; return nil }); err != nil {
		t.Fatal(err)
	}
	if ws, err := d.LoadWorkers(nil); err != nil || ws.Get("found") == nil || ws.Get("found").PID != 7 {
		t.Errorf("after NoteWorkerStart: %v", err)
	}
}
