package state

import (
	"os"
	"testing"
)

// An exit file is read once its first line is whole: the start script writes it in place, and
// a look in the middle of that write must not take "12" for the 127 being written.
func TestExitCodeWaitsForAWholeLine(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.ExitCode("w"); ok {
		t.Error("no exit file read as a code")
	}
	for content, want := range map[string]int{"127\nexecutable not found: x\n": 127, "0\n": 0, " 3 \n": 3, "127\nhalf a reas": 127} {
		if err := os.WriteFile(d.ExitPath("w"), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, ok := d.ExitCode("w"); !ok || got != want {
			t.Errorf("%q: %d, %v; want %d", content, got, ok, want)
		}
	}
	for _, partial := range []string{"", "12", "1"} {
		if err := os.WriteFile(d.ExitPath("w"), []byte(partial), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, ok := d.ExitCode("w"); ok {
			t.Errorf("%q read as %d before its line was whole", partial, got)
		}
	}
}
