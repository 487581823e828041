package ralph

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/state"
)

// An iteration's end taken again (its state could not be written the first time) does not
// record the iteration twice; the next iteration, or another run's, is recorded.
func TestAppendIterationOnce(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	for _, r := range []IterationRecord{{RunID: "a", Iteration: 1}, {RunID: "a", Iteration: 1}, {RunID: "a", Iteration: 2}, {RunID: "b", Iteration: 2}} {
		if err := d.AppendIteration(r); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(d.IterationsJSONL())
	if n := strings.Count(string(data), "\n"); n != 3 {
		t.Errorf("got %d records, want 3:\n%s", n, data)
	}
}

// Records rotated out of iterations.jsonl (see RecordsMax) are still the loop's history: read
// first, and the last of them is what an iteration's end taken again is checked against when
// the file was just started afresh.
func TestIterationsAcrossARotation(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	older := `{"runId":"a","iteration":1}` + "\n" + `{"runId":"a","iteration":2}` + "\n"
	if err := os.WriteFile(state.Rotated(d.IterationsJSONL()), []byte(older), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := d.AppendIteration(IterationRecord{RunID: "a", Iteration: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.IterationsJSONL()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("iteration 2 recorded again after a rotation (%v)", err)
	}
	if err := d.AppendIteration(IterationRecord{RunID: "a", Iteration: 3}); err != nil {
		t.Fatal(err)
	}
	recs, skipped, err := d.ReadIterations()
	if err != nil || skipped != 0 {
		t.Fatal(err, skipped)
	}
	var got []int
	for _, r := range recs {
		got = append(got, r.Iteration)
	}
	if !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("iterations read: %v, want 1, 2, 3", got)
	}
}
