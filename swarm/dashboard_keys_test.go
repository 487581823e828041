package swarm

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// Why a key's action failed is on the bottom line, through refreshes, until the next key.
func TestDashboardActionErrorStaysUntilTheNextKey(t *testing.T) {
	h := newDashHarness(t, testRows()...)
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
		{[]string{"k", "y"}, "could not kill builder: worker 'builder' is not running"},
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
	h := newDashHarness(t, testRows()...)
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

// In colour the reason an action failed is red, so it is not taken for what it did.
func TestDashboardErrorLineInRed(t *testing.T) {
	v := goldenView(24)
	v.Error = "could not kill builder: worker 'builder' is not running"
	if got := renderDashboard(v, newDashStyles(io.Discard, true)); !strings.Contains(got, "\x1b[38;5;196m"+v.Error) {
		t.Errorf("the error line is not red:\n%q", got[strings.LastIndex(got, "\n")+1:])
	}
}
