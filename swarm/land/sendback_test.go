package land

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
)

func TestSendBackNoteSaysWhatFailedAndWhatToDo(t *testing.T) {
	conflict := SendBackNote(&Record{Branch: "w2", Target: "main", State: NeedsRebase,
		Reason: "conflicts with main in a.go", Conflicts: []string{"a.go", "b.go"}})
	for _, want := range []string{"Your branch w2 did not land on main: conflicts with main in a.go.",
		"Conflicting files: a.go, b.go.", "git merge main", "offered for landing again"} {
		if !strings.Contains(conflict, want) {
			t.Errorf("conflict note lacks %q:\n%s", want, conflict)
		}
	}
	out := filepath.Join(t.TempDir(), "out.txt")
	lines := make([]string, 40)
	for i := range lines {
		lines[i] = "line " + string(rune('a'+i%26))
	}
	lines[39] = "FAIL: TestX"
	if err := os.WriteFile(out, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	red := SendBackNote(&Record{Branch: "w4", Target: "main", State: BreaksTests, Reason: "tests failed",
		TestCommand: "go test ./...", OutputFile: out})
	for _, want := range []string{"`go test ./...` failed", "    FAIL: TestX", "run `go test ./...` until it passes"} {
		if !strings.Contains(red, want) {
			t.Errorf("test note lacks %q:\n%s", want, red)
		}
	}
	if n := strings.Count(red, "    line "); n != outputTailLines-1 {
		t.Errorf("%d output lines in the note, want the last %d", n, outputTailLines)
	}
	cloned := SendBackNote(&Record{Branch: "w5", Target: "main", State: NeedsRebase, Clone: true, Conflicts: []string{"a.go"}})
	if want := "(git fetch origin, then git merge origin/main)"; !strings.Contains(cloned, want) {
		t.Errorf("a clone's note lacks %q:\n%s", want, cloned)
	}
	ld := ralph.Dir{Path: t.TempDir()}
	if err := WriteSendBackNote(ld, &Record{State: NeedsRebase}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ld.NextPromptNote()); err != nil {
		t.Fatal(err)
	}
}
