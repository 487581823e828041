package driver

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
)

// A decision whose state was written but whose events could not be logged stands (the state
// holds it) and hands its events back; the loop logs them, at their own time, once it can.
func TestEventsNotLoggedAreKeptAndLoggedLater(t *testing.T) {
	d := ralph.Dir{Path: t.TempDir()}
	if err := d.Create(&ralph.State{Status: ralph.StatusRunning, MaxIterations: 3}); err != nil {
		t.Fatal(err)
	}
	// The log cannot be appended to (as on a full disk whose state file still fits).
	if err := os.Mkdir(d.IterationsLog(), 0o700); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 26, 13, 0, 0, 0, time.UTC)
	dec := ralph.Decision{Status: ralph.StatusStopped, ExitReason: "max_iterations",
		Events: []ralph.Event{{Kind: "END", Text: "iteration 3"}, {Kind: "STOP", Text: "max iterations (3) reached"}}}
	_, err := d.Apply(at, dec)
	var ue *ralph.UnloggedError
	if !errors.As(err, &ue) || len(ue.Events) != 2 || !ue.At.Equal(at) {
		t.Fatalf("Apply: %v (%+v), want both events handed back", err, ue)
	}
	if st, _ := d.Load(); st.Status != ralph.StatusStopped {
		t.Fatalf("the decision was not recorded: %+v", st)
	}

	var said strings.Builder
	// The recording stands alone here: nothing it does in this test pauses or asks for a stop.
	r := newRecorder(&Config{Dir: d, Name: "w", Out: &said}, nil)
	r.keepUnlogged(err)
	if r.writePending() {
		t.Fatal("logged into a log that cannot be written")
	}
	if !strings.Contains(said.String(), "cannot record the loop's progress") {
		t.Errorf("the failure was not said: %q", said.String())
	}
	if err := os.Remove(d.IterationsLog()); err != nil {
		t.Fatal(err)
	}
	if !r.writePending() {
		t.Fatal("events still kept once the log can be written")
	}
	// An iteration record the disk refused is kept behind them, and written after them.
	if err := os.Mkdir(d.IterationsJSONL(), 0o700); err != nil {
		t.Fatal(err)
	}
	r.appendOrKeep(func() error { return d.AppendIteration(ralph.IterationRecord{Iteration: 3}) })
	if len(r.pending) != 1 {
		t.Fatalf("%d appends kept, want the record", len(r.pending))
	}
	if err := os.Remove(d.IterationsJSONL()); err != nil {
		t.Fatal(err)
	}
	if !r.writePending() {
		t.Fatal("the record still kept once it can be written")
	}
	if recs, _ := os.ReadFile(d.IterationsJSONL()); strings.Count(string(recs), `"iteration":3,`) != 1 {
		t.Errorf("iterations.jsonl:\n%s\nwant the record once", recs)
	}
	log, _ := os.ReadFile(d.IterationsLog())
	want := "2026-11-26T13:00:00 [END] iteration 3\n2026-11-26T13:00:00 [STOP] max iterations (3) reached\n"
	if !strings.HasSuffix(string(log), want) || strings.Count(string(log), "[END]") != 1 {
		t.Errorf("log:\n%s\nwant it to end with:\n%s", log, want)
	}
}
