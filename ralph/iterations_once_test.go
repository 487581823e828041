package ralph

import (
	"os"
	"strings"
	"testing"
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
