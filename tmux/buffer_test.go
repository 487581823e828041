package tmux

import "testing"

// A staged buffer exists until it is pasted, through a tmux process or the control client,
// and the paste deletes it: what tells a monitor taking over whether a prompt was pasted.
func TestStagedBuffers(t *testing.T) {
	e, c, out := rawCatPane(t)
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
