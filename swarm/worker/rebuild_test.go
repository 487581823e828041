package worker

import (
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
)

// The panes rebuilt as workers: live ones, and a loop's between two agents (its pane dead,
// its loop not over), the newest where a dead one of the name was left from before; never
// the dead pane of a plain worker or of a loop that ended.
func TestPaneWorkers(t *testing.T) {
	dir, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, status := range map[string]ralph.Status{"between": ralph.StatusRunning, "paused": ralph.StatusPaused, "over": ralph.StatusStopped} {
		if err := ralph.DirFor(dir, name).Create(&ralph.State{WorkerName: name, Status: status}); err != nil {
			t.Fatal(err)
		}
	}
	// No process has pid 0x7ffffff0: a live pane's name is its window's.
	const nobody = 0x7ffffff0
	panes := map[string]tmux.Pane{
		"%1": {ID: "%1", Dead: true, WindowName: "between", SwarmID: "old"},
		"%4": {ID: "%4", Dead: true, WindowName: "between", SwarmID: "new"},
		"%2": {ID: "%2", Dead: true, WindowName: "paused", SwarmID: "p"},
		"%3": {ID: "%3", Dead: true, WindowName: "over", SwarmID: "o"},
		"%5": {ID: "%5", Dead: true, WindowName: "plain", SwarmID: "x"},
		"%6": {ID: "%6", WindowName: "live", SwarmID: "l", PID: nobody},
		"%7": {ID: "%7", Dead: true, WindowName: "live", SwarmID: "l-old"},
		"%8": {ID: "%8", WindowName: "other", PID: nobody},
	}
	got := paneWorkers(dir, panes)
	want := map[string]string{"between": "new", "paused": "p", "live": "l"}
	if len(got) != len(want) {
		t.Errorf("workers: %v", got)
	}
	for name, id := range want {
		if got[name].SwarmID != id {
			t.Errorf("%s: pane %+v, want the one of %s", name, got[name], id)
		}
	}
}
