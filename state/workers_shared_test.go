package state

import (
	"testing"
)

func TestSharedWorkerIsReadAgainAfterEveryWrite(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if w, err := d.SharedWorker("a"); err != nil || w != nil {
		t.Fatalf("no records: %v, %v", w, err)
	}
	put := func(cwd string) {
		t.Helper()
		if err := d.UpdateWorkers(nil, func(ws *Workers) error {
			ws.Put(&Worker{Name: "a", Cwd: cwd, Tmux: &TmuxInfo{PaneID: "%1"}})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	put("/one")
	first, err := d.SharedWorker("a")
	if err != nil || first == nil || first.Cwd != "/one" {
		t.Fatalf("after the first write: %+v, %v", first, err)
	}
	if again, _ := d.SharedWorker("a"); again != first {
		t.Error("an unchanged file was decoded again")
	}
	// Written again with the same bytes: nothing to decode.
	put("/one")
	if again, _ := d.SharedWorker("a"); again != first {
		t.Error("a file rewritten unchanged was decoded again")
	}
	// The same size at once after (inode, size and time may all repeat): the bytes differ.
	put("/two")
	if w, _ := d.SharedWorker("a"); w == nil || w.Cwd != "/two" {
		t.Errorf("after the second write: %+v", w)
	}
}
