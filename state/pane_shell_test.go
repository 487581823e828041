package state

import (
	"os"
	"testing"
)

// The note a start script writes is read once its line is whole, and names a pane shell's
// agent only when the script's parent is that host.
func TestPaneShellAgentReadsWholeNotes(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.PaneShellAgent("w", 100); ok {
		t.Error("no note: an agent was found")
	}
	cases := []struct {
		note    string
		shell   int
		agent   int
		inShell bool
	}{
		{"200 100\n", 100, 200, true},
		{"200 100", 100, 0, false},   // still being written
		{"200 999\n", 100, 0, false}, // started by another process than the pane's
		{"100 50\n", 100, 0, false},  // the pane's process is the script itself
		{"200\n", 100, 0, false},
		{"x 100\n", 100, 0, false},
		{"200 100\n", 0, 0, false},
	}
	for _, c := range cases {
		if err := os.WriteFile(d.AgentPIDPath("w"), []byte(c.note), 0o600); err != nil {
			t.Fatal(err)
		}
		pid, ok := d.PaneShellAgent("w", c.shell)
		if pid != c.agent || ok != c.inShell {
			t.Errorf("note %q, shell %d: (%d, %v), want (%d, %v)", c.note, c.shell, pid, ok, c.agent, c.inShell)
		}
	}
	if err := os.WriteFile(d.AgentPIDPath("w"), []byte("100 50\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if pid, parent, ok := d.AgentNote("w"); pid != 100 || parent != 50 || !ok {
		t.Errorf("AgentNote: (%d, %d, %v)", pid, parent, ok)
	}
}
