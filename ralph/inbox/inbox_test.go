package inbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestQueueChanges(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	var recs []Record
	recs, a := Add(recs, "a.md", now)
	recs, b := Add(recs, "b.md", now)
	recs, _ = Add(recs, "c.md", now)
	if !idRe.MatchString(a.ID) || a.ID == b.ID || a.Status != Pending || a.AddedAt != "2026-11-24T10:00:00Z" || a.T != "inbox" {
		t.Fatalf("added %+v, %+v", a, b)
	}
	recs[2].Status = Active
	if _, _, err := Remove(recs, "c.md"); err == nil || !strings.Contains(err.Error(), "it is active") {
		t.Errorf("removed an active spec: %v", err)
	}
	recs, r, err := Remove(recs, b.ID)
	if err != nil || r.Spec != "b.md" || len(recs) != 2 {
		t.Errorf("remove by id: %+v %v %d", r, err, len(recs))
	}
	if _, _, err := Remove(recs, "zzz"); err == nil {
		t.Error("removed what is not there")
	}
	recs, n := Clear(recs)
	if n != 1 || len(recs) != 1 || recs[0].Spec != "c.md" {
		t.Errorf("clear: %d, %+v", n, recs)
	}
	if c := Counts(recs); c[Active] != 1 || c[Pending] != 0 {
		t.Errorf("counts %v", c)
	}
}

func TestInboxFile(t *testing.T) {
	root := t.TempDir()
	ib, err := Open(root, func(string) (string, error) { return "", errors.New("not a repository") })
	if err != nil || ib.Root != root {
		t.Fatalf("open: %+v %v", ib, err)
	}
	if recs, err := ib.Load(); recs != nil || err != nil {
		t.Errorf("no inbox yet: %v %v", recs, err)
	}
	err = ib.Update(func(recs []Record) ([]Record, error) {
		recs, _ = Add(recs, "a.md", time.Now())
		return recs, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(ib.Path())
	if !strings.HasPrefix(string(data), `{"t":"inbox","id":"q-`) || !strings.HasSuffix(string(data), `"status":"pending"}`+"\n") {
		t.Errorf("file %q", data)
	}
	// A failing change writes nothing.
	_ = ib.Update(func(recs []Record) ([]Record, error) { return nil, errors.New("no") })
	if after, _ := os.ReadFile(ib.Path()); string(after) != string(data) {
		t.Error("a failed change was written")
	}
	for _, bad := range []string{`{"t":"inbox","id":"x-1234","spec":"a","added_at":"","status":"pending"}`,
		`{"t":"inbox","id":"q-abcd","spec":"a","added_at":"","status":"queued"}`,
		`{"t":"inbox","id":"q-abcd","spec":"a","added_at":"","status":"pending","extra":1}`, `{`} {
		os.WriteFile(ib.Path(), append(data, []byte(bad+"\n")...), 0o644)
		if _, err := ib.Load(); err == nil || !strings.HasPrefix(err.Error(), filepath.Join("ralph", "inbox.jsonl")+":2: ") {
			t.Errorf("%s: %v", bad, err)
		}
		if err := ib.Update(func(r []Record) ([]Record, error) { return r, nil }); err == nil {
			t.Errorf("%s: rewritten", bad)
		}
	}
	if _, err := Open(filepath.Join(root, "nope"), nil); err == nil {
		t.Error("opened a missing directory")
	}
}

func TestAgentModesChanges(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	var recs []Record
	recs, a := Add(recs, "a.md", t0)
	recs, b := Add(recs, "b.md", t0)
	if i := Next(recs, nil); i != 0 {
		t.Fatalf("next %d", i)
	}
	if i := Next(recs, []string{a.ID}); i != 1 {
		t.Errorf("next skipping a: %d", i)
	}
	Activate(recs, 0, t0.Add(time.Minute))
	if recs[0].Status != Active || recs[0].StartedAt != "2026-11-25T10:01:00Z" || Next(recs, nil) != 1 {
		t.Errorf("activated %+v", recs[0])
	}
	Requeue(recs, a.ID)
	Activate(recs, 0, t0.Add(time.Hour))
	if recs[0].StartedAt != "2026-11-25T10:01:00Z" {
		t.Errorf("a resumed spec keeps its start: %s", recs[0].StartedAt)
	}
	Finish(recs, a.ID, "", t0.Add(2*time.Hour))
	Finish(recs, b.ID, "construct failed", t0.Add(3*time.Hour))
	Finish(recs, "q-none", "", t0)
	if recs[0].Status != Done || recs[0].CompletedAt != "2026-11-25T12:00:00Z" || recs[1].Status != Failed || recs[1].Error != "construct failed" {
		t.Errorf("finished %+v", recs)
	}
	Requeue(recs, b.ID)
	if recs[1].Status != Failed || Next(recs, nil) != -1 || Index(recs, b.ID) != 1 || Index(recs, "q-none") != -1 {
		t.Errorf("only an active spec goes back to pending: %+v", recs[1])
	}
}

// A change that fails, or finds no inbox and leaves none, creates nothing in the project: no
// ralph/ directory, no inbox, no lock file. A change under way holds the lock on ralph/.
func TestUpdateCreatesNothingItDoesNotWrite(t *testing.T) {
	root := t.TempDir()
	ib := Inbox{Root: root}
	if err := ib.Update(func(r []Record) ([]Record, error) { return nil, errors.New("no such spec") }); err == nil {
		t.Error("the failure was lost")
	}
	if err := ib.Update(func(r []Record) ([]Record, error) { r, _ = Clear(r); return r, nil }); err != nil {
		t.Error(err)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("created %v", entries)
	}
	if err := os.MkdirAll(filepath.Join(root, "ralph", "specs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ib.Update(func(r []Record) ([]Record, error) { return r, nil }); err != nil {
		t.Error(err)
	}
	if entries, _ := os.ReadDir(filepath.Join(root, "ralph")); len(entries) != 1 {
		t.Errorf("ralph/ holds %v, want specs/ only", entries)
	}
	// Two changes at once both land.
	done := make(chan error, 2)
	for _, spec := range []string{"a.md", "b.md"} {
		go func() {
			done <- ib.Update(func(r []Record) ([]Record, error) { r, _ = Add(r, spec, time.Now()); return r, nil })
		}()
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if recs, err := ib.Load(); err != nil || len(recs) != 2 {
		t.Errorf("after two adds at once: %v %v", recs, err)
	}
}
