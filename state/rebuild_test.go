package state

import (
	"os"
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
