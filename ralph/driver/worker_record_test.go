package driver

import (
	"os"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// A loop whose worker's record was rebuilt (the workers' state file was corrupt) writes back
// the record it last read whole, with the pane the rebuilt one found, and says so: its next
// agent starts as the last did. One that never read it says it cannot start another agent.
func TestALoopRestoresItsRebuiltWorkerRecord(t *testing.T) {
	d, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	whole := &state.Worker{ID: "id-1", Name: "w", Status: state.StatusRunning, Cmd: []string{"claude", "--x"}, Cwd: "/src",
		Tags: []string{"t"}, Tmux: &state.TmuxInfo{Session: "swarm", Window: "w", PaneID: "%1"}}
	if err := d.UpdateWorkers(nil, func(ws *state.Workers) error { ws.Put(whole); return nil }); err != nil {
		t.Fatal(err)
	}
	d.Rebuild = func() []*state.Worker {
		return []*state.Worker{{ID: "id-1", Name: "w", Status: state.StatusRunning, Cmd: []string{}, Tags: []string{},
			Tmux: &state.TmuxInfo{Session: "swarm", Window: "w", PaneID: "%7"}, Metadata: map[string]any{"rebuilt": true}}}
	}
	var said strings.Builder
	ld := ralph.Dir{Path: d.RalphDir("w")}
	if err := os.MkdirAll(ld.Path, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Name: "w", Dir: ld, Workers: d, Out: &said}
	cfg.defaults()
	if w, err := cfg.worker(); err != nil || w.Cwd != "/src" {
		t.Fatalf("worker: %v, %v", w, err)
	}
	if err := os.WriteFile(d.RalphDir("../state.json"), []byte(`{"workers": [ {"name": `), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := cfg.worker()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(w.Cmd, " ") != "claude --x" || w.Cwd != "/src" || w.Tmux.PaneID != "%7" || isRebuilt(w) {
		t.Errorf("restored: %+v, want the command and directory back, in the pane found", w)
	}
	if ws, _ := d.LoadWorkers(nil); ws.Get("w") == nil || ws.Get("w").Cwd != "/src" {
		t.Error("the restored record was not written")
	}
	for _, want := range []string{"was corrupt", "restored them from what the loop last read"} {
		if !strings.Contains(said.String(), want) {
			t.Errorf("said %q, want %q", said.String(), want)
		}
	}
	events, _ := os.ReadFile(ld.IterationsLog())
	if strings.Count(string(events), "[WARN]") != 2 {
		t.Errorf("events:\n%s", events)
	}

	// A loop that never read its record whole keeps the rebuilt one; it cannot start an agent.
	fresh := Config{Name: "w", Dir: ld, Workers: d, Out: &said}
	fresh.defaults()
	if err := os.WriteFile(d.RalphDir("../state.json"), []byte(`{"workers": [ {"name": `), 0o600); err != nil {
		t.Fatal(err)
	}
	if w, err := fresh.worker(); err != nil || !isRebuilt(w) {
		t.Fatalf("worker: %+v, %v", w, err)
	}
	if _, err := (&loopPane{l: &Loop{cfg: fresh}}).Command(); err != errCommandLost {
		t.Errorf("Command of a rebuilt record: %v", err)
	}
}
