package dashboard

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// The names of the rows shown, top to bottom.
func (h *harness) rowNames() []string {
	var names []string
	for _, r := range h.m.view.Rows {
		names = append(names, r.Name)
	}
	return names
}

// j and k move the selection down and up, as the arrows do; k kills nothing.
func TestDashboardJAndKSelect(t *testing.T) {
	h := newHarness(t, testRows()...)
	h.wantFrame("▸ builder")
	for _, c := range []struct{ key, want string }{
		{"j", "▸ sh1"}, {"j", "▸ planner"}, {"j", "▸ planner"}, {"k", "▸ sh1"}, {"k", "▸ builder"}, {"k", "▸ builder"},
	} {
		h.keys(c.key)
		h.wantFrame(c.want, "screen of "+strings.TrimPrefix(c.want, "▸ "))
	}
	if got := h.data.commands(); len(got) != 0 {
		t.Errorf("ran %q for j and k", got)
	}
	if strings.Contains(h.frame(), "kill") && strings.Contains(h.frame(), "(y/n)") {
		t.Errorf("k asks to kill:\n%s", h.frame())
	}
}

// Rows that need a person come first, whatever order they were read in.
func TestDashboardNeedsAttentionFirst(t *testing.T) {
	h := newHarness(t, goldenRows()...)
	want := []string{"a-very-long-worker-name-that-is-cut", "fix-42", "inbox", "builder", "tests", "planner"}
	if got := h.rowNames(); !reflect.DeepEqual(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	h.wantFrame("▸ a-very-long-worker-name", "sort: attention ·")
}

// o turns the order round; the footer says which is in force and the selection stays on its
// worker.
func TestDashboardSortKey(t *testing.T) {
	h := newHarness(t, startedRows()...)
	h.keys("j") // fix-42
	for _, c := range []struct {
		sort  string
		names []string
	}{
		{"name", []string{"a-very-long-worker-name-that-is-cut", "builder", "fix-42", "inbox", "planner", "tests"}},
		{"started", []string{"builder", "planner", "fix-42", "inbox", "tests", "a-very-long-worker-name-that-is-cut"}},
		{"attention", []string{"a-very-long-worker-name-that-is-cut", "fix-42", "inbox", "builder", "tests", "planner"}},
	} {
		h.keys("o")
		if got := h.rowNames(); !reflect.DeepEqual(got, c.names) {
			t.Errorf("by %s: rows %q, want %q", c.sort, got, c.names)
		}
		h.wantFrame("sorted by "+c.sort, "▸ fix-42")
		h.keys("?")
		h.wantFrame("(now: " + c.sort + ")")
		h.keys("?")
		h.wantFrame("sort: " + c.sort + " ·")
	}
}

// Why a key's action failed is on the bottom line, through refreshes, until the next key.
func TestDashboardActionErrorStaysUntilTheNextKey(t *testing.T) {
	h := newHarness(t, testRows()...)
	h.data.failing = map[string]error{
		"ralph pause builder": errors.New("loop 'builder' is already paused"),
		"kill builder":        errors.New("swarm: error: worker 'builder' is not running"),
		"send builder -- hi":  errors.New("worker 'builder' has no tmux window"),
	}
	for _, c := range []struct {
		keys []string
		want string
	}{
		{[]string{"p"}, "could not pause builder: loop 'builder' is already paused"},
		{[]string{"x", "y"}, "could not kill builder: worker 'builder' is not running"},
		{[]string{"s", "hi", "enter"}, "could not send to builder: worker 'builder' has no tmux window"},
	} {
		h.keys(c.keys...)
		h.wantFrame(c.want)
		h.send(tickMsg{})
		h.wantFrame(c.want)
		h.keys("down")
		if strings.Contains(h.frame(), c.want) {
			t.Errorf("%q still shown after the next key:\n%s", c.want, h.frame())
		}
		h.keys("up")
	}
}

// Attaching that fails says why in the dashboard, not on the terminal after it quits.
func TestDashboardAttachError(t *testing.T) {
	h := newHarness(t, testRows()...)
	h.data.attachErr = errors.New("swarm: error: worker 'builder' has no tmux window any more")
	h.keys("enter")
	if got, want := h.data.commands(), [][]string{{"attach", "builder"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("ran %q, want %q", got, want)
	}
	h.wantFrame("could not attach to builder: worker 'builder' has no tmux window any more")
	h.data.attachErr = nil
	h.keys("enter")
	h.wantFrame("back from builder")
}

// Esc clears the filter kept with enter; while one is typed, it clears it too.
func TestDashboardEscClearsTheFilter(t *testing.T) {
	h := newHarness(t, testRows()...)
	h.keys("/", "chain", "enter")
	if got := h.rowNames(); !reflect.DeepEqual(got, []string{"planner"}) {
		t.Fatalf("rows %q with the filter kept", got)
	}
	h.keys("esc")
	if got := h.rowNames(); len(got) != 3 {
		t.Errorf("rows %q after esc, want all three", got)
	}
	h.wantFrame("▸ planner")
	if strings.Contains(h.frame(), "filter:") {
		t.Errorf("the filter is still shown:\n%s", h.frame())
	}
	h.keys("/", "sh")
	if got := h.rowNames(); !reflect.DeepEqual(got, []string{"sh1"}) {
		t.Fatalf("rows %q while typing", got)
	}
	h.keys("esc")
	if got := h.rowNames(); len(got) != 3 || h.m.mode != modeKeys {
		t.Errorf("rows %q (mode %d) after esc while typing", got, h.m.mode)
	}
}

// Esc closes the help first; the filter stays until the next esc.
func TestDashboardEscClosesTheHelp(t *testing.T) {
	h := newHarness(t, testRows()...)
	h.keys("/", "loop", "enter", "?")
	h.wantFrame("── keys")
	h.keys("esc")
	h.wantFrame("── builder · screen", "filter: loop")
	h.send(tea.KeyPressMsg{Code: tea.KeyEscape})
	if strings.Contains(h.frame(), "filter: loop") {
		t.Errorf("the second esc left the filter:\n%s", h.frame())
	}
}

// In colour the reason an action failed is red, so it is not taken for what it did.
func TestDashboardErrorLineInRed(t *testing.T) {
	v := goldenView(24)
	v.Error = "could not kill builder: worker 'builder' is not running"
	if got := render(v, newStyles(true)); !strings.Contains(got, "\x1b[38;5;196m"+v.Error) {
		t.Errorf("the error line is not red:\n%q", got[strings.LastIndex(got, "\n")+1:])
	}
}

func TestEveryKeyIsInTheHelpAndItsHintNamesIt(t *testing.T) {
	help := strings.Join(helpLines(sortAttention), "\n")
	seen := map[string]bool{}
	for _, b := range bindings {
		if !strings.Contains(help, " "+b.shown+" ") || !strings.Contains(help, b.help) {
			t.Errorf("the help lacks %q %q", b.shown, b.help)
		}
		for _, k := range b.keys {
			if seen[k] {
				t.Errorf("key %q is bound twice", k)
			}
			seen[k] = true
		}
		if b.hint != "" && !slices.ContainsFunc(b.keys, func(k string) bool { return strings.HasPrefix(b.hint, k) }) &&
			!strings.HasPrefix(b.hint, strings.Join(b.keys, "/")) {
			t.Errorf("hint %q names none of %q", b.hint, b.keys)
		}
	}
	if hint := hintLine(); !strings.HasPrefix(hint, "? help · q quit · enter attach") {
		t.Errorf("the footer's hint does not start with the keys most needed: %q", hint)
	}
}
