package ralph

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestIterationRecordsSurviveATornLine(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	if recs, skipped, err := d.ReadIterations(); recs != nil || skipped != 0 || err != nil {
		t.Fatalf("no file: %v %d %v", recs, skipped, err)
	}
	if err := d.AppendIteration(IterationRecord{RunID: "r", Iteration: 1, EndReason: "exit"}); err != nil {
		t.Fatal(err)
	}
	// A writer that died mid-line.
	f, _ := os.OpenFile(d.IterationsJSONL(), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"runId":"r","iter`)
	f.Close()
	cost := 0.5
	d.AppendIteration(IterationRecord{RunID: "r", Iteration: 2, Commits: []string{"abc"}, Cost: &cost})
	recs, skipped, err := d.ReadIterations()
	if err != nil || skipped != 1 || len(recs) != 2 || recs[1].Iteration != 2 || recs[1].Commits[0] != "abc" {
		t.Fatalf("records %+v skipped %d err %v", recs, skipped, err)
	}
	data, _ := os.ReadFile(d.IterationsJSONL())
	first := strings.SplitN(string(data), "\n", 2)[0]
	want := `{"runId":"r","iteration":1,"agent":"","startedAt":"","endedAt":"","durationMs":0,"exitCode":null,"endReason":"exit","signals":[],"checks":[],"commits":[],"tokens":null,"cost":null}`
	if first != want {
		t.Errorf("record line\n%s\nwant\n%s", first, want)
	}
}

func TestSummary(t *testing.T) {
	start := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	st := &State{WorkerName: "w", RunID: "r1", Agent: "claude", Status: StatusStopped, ExitReason: "complete",
		CurrentIteration: 3, MaxIterations: 10, Started: start.Format(TimeFormat), Ended: start.Add(150 * time.Second).Format(TimeFormat),
		Signals: []string{SignalMarker}, LastChecks: []CheckResult{pass}, TotalFailures: 1}
	recs := []IterationRecord{
		{RunID: "old", Iteration: 1, Commits: []string{"0000000000"}},
		{RunID: "r1", Iteration: 1, Commits: []string{"1111111111"}},
		{RunID: "r1", Iteration: 3, Commits: []string{"2222222222", "3333333333"}},
	}
	s := BuildSummary("w", st, recs, 1, start.Add(time.Hour))
	if s.DurationMs != 150000 || s.Cost != nil || !reflect.DeepEqual(s.Commits, []string{"1111111111", "2222222222", "3333333333"}) ||
		s.Rollbacks != 1 || s.Failures != 1 || s.Ended != "2026-01-02T10:02:30Z" {
		t.Errorf("summary %+v", s)
	}
	md := s.Markdown()
	for _, want := range []string{"# Loop summary: w\n", "- **Status:** done (complete)\n", "- **Iterations:** 3/10\n",
		"- **Duration:** 2m 30s\n", "- **Cost:** unknown\n", "- **Signals:** marker\n", "- PASS `file:DONE.md`: DONE.md exists\n",
		"## Commits (3)\n", "- 2222222\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("summary text lacks %q:\n%s", want, md)
		}
	}
}
