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

// One record changed: the others are not decoded again, by the shared reader nor by the
// update, and a record handed out before is never changed under its holder.
func TestNoteWorkerStartChangesOneRecord(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := d.NoteWorkerStart("a", func(*Worker) error { t.Error("fn ran without records"); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := d.UpdateWorkers(nil, func(ws *Workers) error {
		ws.Put(&Worker{Name: "a", Cwd: "/a", Env: map[string]string{"K": "v"}, Tmux: &TmuxInfo{PaneID: "%1"}})
		ws.Put(&Worker{Name: "b", Cwd: "/b", Tmux: &TmuxInfo{PaneID: "%2"}})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	a1, _ := d.SharedWorker("a")
	b1, _ := d.SharedWorker("b")
	if err := d.NoteWorkerStart("a", func(w *Worker) error {
		w.Tmux.PaneID, w.Env["K"] = "%9", "changed"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if a1.Tmux.PaneID != "%1" || a1.Env["K"] != "v" {
		t.Errorf("a record handed out was changed: %+v", a1)
	}
	a2, _ := d.SharedWorker("a")
	b2, _ := d.SharedWorker("b")
	if a2 == a1 || a2.Tmux.PaneID != "%9" || a2.Env["K"] != "changed" {
		t.Errorf("after the update: %+v", a2)
	}
	if b2 != b1 {
		t.Error("an unchanged record was decoded again")
	}
	ws, err := d.LoadWorkers(nil)
	if err != nil || ws.Get("b").Cwd != "/b" || ws.Get("a").Tmux.PaneID != "%9" {
		t.Errorf("the file holds %+v (%v)", ws, err)
	}
	if err := d.NoteWorkerStart("gone", func(*Worker) error { t.Error("fn ran for a worker that is gone"); return nil }); err != nil {
		t.Error(err)
	}
}
