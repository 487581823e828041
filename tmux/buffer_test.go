package tmux

import (
	"os"
	"path/filepath"
	"testing"
)

// A staged buffer exists until it is pasted, through a tmux process or the control client,
// and the paste deletes it: what tells a monitor taking over whether a prompt was pasted.
func TestStagedBuffers(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "got")
	ready := filepath.Join(dir, "ready")
	e := realServer(t, "stty raw -echo; touch "+ready+"; exec cat > "+out)
	c, err := e.Control("w")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	waitBytes(t, ready, 0)
	if _, err := os.Stat(ready); err != nil {
		t.Fatal("the terminal was not made raw")
	}
	for i, step := range []struct {
		stage func(name, text string) error
		paste func(pane, name string, bracketed bool) error
	}{{e.StageBuffer, e.PasteBuffer}, {c.StageBuffer, c.PasteBuffer}} {
		name := "swarm-test-" + string(rune('a'+i))
		if err := step.stage(name, "it's $HOME;"); err != nil {
			t.Fatal(err)
		}
		if ok, err := e.HasBuffer(name); err != nil || !ok {
			t.Fatalf("staged buffer %s not there: %v %v", name, ok, err)
		}
		if err := step.paste("%0", name, false); err != nil {
			t.Fatal(err)
		}
		if ok, err := e.HasBuffer(name); err != nil || ok {
			t.Errorf("pasted buffer %s still there: %v %v", name, ok, err)
		}
	}
	want := "it's $HOME;it's $HOME;"
	if got := waitBytes(t, out, len(want)); got != want {
		t.Errorf("the program got %q, want %q", got, want)
	}
	e.DeleteBuffer("none")
}
