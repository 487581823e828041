package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

func TestReadWhatCanBeReadAndSayWhatCannot(t *testing.T) {
	d, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ld := ralph.DirFor(d, "w1")
	if err := ld.Create(&ralph.State{WorkerName: "w1", Status: ralph.StatusRunning}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []ralph.IterationRecord{{Iteration: 1, EndReason: "exit"}, {Iteration: 2, EndReason: "done"}} {
		if err := ld.AppendIteration(r); err != nil {
			t.Fatal(err)
		}
	}
	f, problems := Read(d, "w1")
	if f.Loop == nil || len(f.Records) != 2 || len(problems) != 0 || f.Landing != nil {
		t.Fatalf("facts %+v, problems %q", f, problems)
	}

	// A torn line, a damaged state and a damaged landing record: the records are still read.
	appendTo(t, ld.IterationsJSONL(), "{torn\n")
	writeFile(t, ld.StatePath(), "{not json")
	writeFile(t, filepath.Join(d.Root, "land", "w1.json"), "[")
	f, problems = Read(d, "w1")
	if f.Loop != nil || len(f.Records) != 2 {
		t.Errorf("facts %+v", f)
	}
	want := []string{"its loop state cannot be read", "1 line of its iterations.jsonl cannot be read", "its landing record cannot be read"}
	if len(problems) != len(want) {
		t.Fatalf("problems %q, want %q", problems, want)
	}
	for i, p := range problems {
		if !strings.HasPrefix(p, want[i]) {
			t.Errorf("problem %q, want %q", p, want[i])
		}
	}

	// A plain worker has no loop and no problem.
	if f, problems := Read(d, "plain"); f.Loop != nil || f.Records != nil || len(problems) != 0 {
		t.Errorf("a plain worker: %+v, %q", f, problems)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, path, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
}
