package state

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

func TestSharedWorkerIsReadAgainAfterEveryWrite(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if w, err := d.SharedWorker("a", nil); err != nil || w != nil {
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
	first, err := d.SharedWorker("a", nil)
	if err != nil || first == nil || first.Cwd != "/one" {
		t.Fatalf("after the first write: %+v, %v", first, err)
	}
	if again, _ := d.SharedWorker("a", nil); again != first {
		t.Error("an unchanged file was decoded again")
	}
	// Written again with the same bytes: nothing to decode.
	put("/one")
	if again, _ := d.SharedWorker("a", nil); again != first {
		t.Error("a file rewritten unchanged was decoded again")
	}
	// The same size at once after (inode, size and time may all repeat): the bytes differ.
	put("/two")
	if w, _ := d.SharedWorker("a", nil); w == nil || w.Cwd != "/two" {
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
	a1, _ := d.SharedWorker("a", nil)
	b1, _ := d.SharedWorker("b", nil)
	if err := d.NoteWorkerStart("a", func(w *Worker) error {
		w.Tmux.PaneID, w.Env["K"] = "%9", "changed"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if a1.Tmux.PaneID != "%1" || a1.Env["K"] != "v" {
		t.Errorf("a record handed out was changed: %+v", a1)
	}
	a2, _ := d.SharedWorker("a", nil)
	b2, _ := d.SharedWorker("b", nil)
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

// What NoteWorkerStart wrote is shared as written, and a change another process made in
// between is never undone by a record it took from what it wrote before.
func TestNoteWorkerStartKeepsOthersChanges(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := d.UpdateWorkers(nil, func(ws *Workers) error {
		ws.Put(&Worker{Name: "a", Tmux: &TmuxInfo{PaneID: "%1"}})
		ws.Put(&Worker{Name: "b", Tmux: &TmuxInfo{PaneID: "%2"}})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	note := func(name, pane string) {
		t.Helper()
		if err := d.NoteWorkerStart(name, func(w *Worker) error { w.Tmux.PaneID = pane; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	note("a", "%3")
	written, _ := os.ReadFile(d.statePath())
	if c := sharedFor(d.statePath()); !bytes.Equal(c.data, written) || c.ws.Get("a").Tmux.PaneID != "%3" {
		t.Fatalf("what was written is not what is shared: %s", written)
	}
	b1, _ := d.SharedWorker("b", nil)
	// Another process changes b (UpdateWorkers decodes and encodes everything afresh).
	if err := d.UpdateWorkers(nil, func(ws *Workers) error { ws.Get("b").Cwd = "/moved"; return nil }); err != nil {
		t.Fatal(err)
	}
	note("a", "%4")
	ws, err := d.LoadWorkers(nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := ws.Get("a"), ws.Get("b"); a.Tmux.PaneID != "%4" || b.Cwd != "/moved" || b.Tmux.PaneID != "%2" {
		t.Errorf("after the other change: a %+v, b %+v", a, b)
	}
	if b2, _ := d.SharedWorker("b", nil); b2 == b1 || b2.Cwd != "/moved" {
		t.Errorf("b as shared: %+v", b2)
	}
	// A file changed by hand to a record NoteWorkerStart never wrote is taken as it is.
	if err := os.WriteFile(d.statePath(), []byte(`{"workers": [{"name": "a", "tmux": {"pane_id": "%7"}}, {"name": "b", "cwd": "/c"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	note("a", "%8")
	if ws, _ := d.LoadWorkers(nil); ws.Get("a").Tmux.PaneID != "%8" || ws.Get("b").Cwd != "/c" {
		t.Errorf("after a change by hand: a %+v, b %+v", ws.Get("a"), ws.Get("b"))
	}
}

// BenchmarkNoteWorkerStart is one agent start among fifty workers' records.
func BenchmarkNoteWorkerStart(b *testing.B) {
	d, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if err := d.UpdateWorkers(nil, func(ws *Workers) error {
		for i := range 50 {
			ws.Put(&Worker{Name: fmt.Sprintf("q%d", i), Cwd: "/home/dev/project", Cmd: []string{"claude"},
				Env: map[string]string{"A": "b"}, Tmux: &TmuxInfo{Session: "swarm", Window: fmt.Sprintf("q%d", i), PaneID: "%1"},
				Status: StatusRunning, PID: 1234, Metadata: map[string]any{"ralph": true, "ralph_iteration": 5}})
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		if err := d.NoteWorkerStart(fmt.Sprintf("q%d", i%50), func(w *Worker) error {
			w.PID = 1000 + i
			w.Metadata["ralph_iteration"] = i
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
}
