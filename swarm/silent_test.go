package swarm

import (
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
)

// silentTmux is a tmux server that has stopped answering.
type silentTmux struct{ tmux.Client }

func (s silentTmux) err() error { return &tmux.NotAnsweringError{Socket: s.Socket()} }

func (s silentTmux) Panes() (map[string]tmux.Pane, error)   { return nil, s.err() }
func (s silentTmux) Pane(string) (tmux.Pane, error)         { return tmux.Pane{}, s.err() }
func (s silentTmux) PaneNow(string) (tmux.Pane, error)      { return tmux.Pane{}, s.err() }
func (s silentTmux) Capture(string, int) (string, error)    { return "", s.err() }
func (s silentTmux) KillPane(string) error                  { return s.err() }
func (s silentTmux) Paste(string, string, bool) error       { return s.err() }
func (s silentTmux) SendKeys(string, ...string) error       { return s.err() }
func (s silentTmux) NewWindow(tmux.Spec) (tmux.Pane, error) { return tmux.Pane{}, s.err() }

// A server that does not answer: ls warns, naming it, and tells each worker's status from the
// processes that carry its identity.
func TestLsWithASilentServerTellsStatusFromProcesses(t *testing.T) {
	te := newTestEnv(t)
	alive := te.spawn("alive", "")
	gone := te.spawn("gone", "")
	te.Processes.SetOutside(alive.IDTag(), []int{4242})
	te.onTmux(silentTmux{te.Fake})
	if err := runLs(te.env, lsOptions{Format: "table", Status: "all"}); err != nil {
		t.Fatal(err)
	}
	out := te.output()
	if !strings.Contains(te.errb.String(), "is not answering: status is taken from the workers' processes") {
		t.Fatalf("stderr: %q", te.errb.String())
	}
	for name, want := range map[string]string{alive.Name: state.StatusRunning, gone.Name: state.StatusStopped} {
		found := false
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == name {
				found = true
				if f[1] != want {
					t.Errorf("%s: %q, want %s", name, line, want)
				}
			}
		}
		if !found {
			t.Errorf("%s not listed:\n%s", name, out)
		}
	}
}
