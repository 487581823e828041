package loop

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/internal/testmachine"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// newLoopSettings is a loop of three iterations on a prompt file of its own.
func newLoopSettings(t *testing.T, prompt string) *ralph.State {
	t.Helper()
	p := filepath.Join(t.TempDir(), "PROMPT.md")
	if err := os.WriteFile(p, []byte(prompt), 0o600); err != nil {
		t.Fatal(err)
	}
	rc := ralph.DefaultSupervision()
	return &ralph.State{PromptFile: p, MaxIterations: 3, InactivityTimeout: 60, Supervision: &rc}
}

func TestBeginStartsIterationOne(t *testing.T) {
	mt := newTestMachine(t)
	st := newLoopSettings(t, "do the work\n")
	w, err := On(mt.Machine).Begin(worker.SpawnOptions{Name: "agent", Argv: []string{"sh"}, Cwd: t.TempDir()}, st)
	if err != nil {
		t.Fatal(err)
	}
	if w.Name != "agent" || w.Tmux == nil || w.Metadata["ralph"] != true || w.Metadata["ralph_iteration"] != 1 {
		t.Errorf("worker %+v", w)
	}
	ld := ralph.DirFor(mt.Dir(), "agent")
	got := testmachine.LoopState(t, ld)
	if got.WorkerName != "agent" || got.Status != ralph.StatusRunning || got.CurrentIteration != 1 || got.Phase != ralph.PhaseStarting ||
		got.WorkDir != w.Cwd || got.Started == "" || got.LastIterationStarted != got.Started {
		t.Errorf("state %+v", got)
	}
	if data, _ := os.ReadFile(ld.PromptCopy()); string(data) != "do the work\n" {
		t.Errorf("prompt copy %q", data)
	}
	if got := testmachine.Events(t, ld); !reflect.DeepEqual(got, []string{"[START] iteration 1/3"}) {
		t.Errorf("log %q", got)
	}
	if rs := ld.LoadSupervision(); rs.Iteration != 1 {
		t.Errorf("supervision state iteration %d", rs.Iteration)
	}
}

func TestBeginLeavesNothingWhenItFails(t *testing.T) {
	mt := newTestMachine(t)
	cases := []struct {
		name string
		argv []string
		st   *ralph.State
		want string
	}{
		{"nocmd", []string{"no-such-program-here"}, newLoopSettings(t, "x"), "command not found: no-such-program-here"},
		{"noprompt", []string{"sh"}, &ralph.State{PromptFile: filepath.Join(t.TempDir(), "gone.md"), MaxIterations: 1}, "prompt file not found"},
	}
	for _, c := range cases {
		_, err := On(mt.Machine).Begin(worker.SpawnOptions{Name: c.name, Argv: c.argv, Cwd: t.TempDir()}, c.st)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		if _, err := os.Stat(ralph.DirFor(mt.Dir(), c.name).Path); !os.IsNotExist(err) {
			t.Errorf("%s: loop directory left behind (%v)", c.name, err)
		}
		if ws, _ := mt.Dir().LoadWorkers(nil); ws.Get(c.name) != nil {
			t.Errorf("%s: worker record left behind", c.name)
		}
	}
}

func TestUndoRemovesAHalfStartedLoop(t *testing.T) {
	mt := newTestMachine(t)
	w := mt.SpawnShell("half")
	ld := ralph.DirFor(mt.Dir(), "half")
	if err := ld.Create(&ralph.State{}); err != nil {
		t.Fatal(err)
	}
	On(mt.Machine).Undo(w)
	if ws, _ := mt.Dir().LoadWorkers(nil); ws.Get("half") != nil || ld.Exists() {
		t.Error("record or loop left behind")
	}
	if _, ok := mt.Fake.Get(w.Tmux.PaneID); ok {
		t.Error("window left behind")
	}
}

func TestSaveSequence(t *testing.T) {
	mt := newTestMachine(t)
	ld := ralph.DirFor(mt.Dir(), "seq")
	if err := os.MkdirAll(ld.Path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := WriteAgentPrompt(ld, "first spec\n"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(ld.AgentPromptPath()); string(data) != "first spec\n" {
		t.Errorf("agent prompt %q", data)
	}
	chain := &ralph.ChainState{Steps: []ralph.ChainStepState{{ChainStep: ralph.ChainStep{Agent: "planner", MaxIterations: 2}}}}
	project := t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, "ralph"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := SaveSequence(ld, chain, &ralph.AgentMode{Project: project, Stage: "construct"}); err != nil {
		t.Fatal(err)
	}
	if cs, err := ld.LoadChain(); err != nil || cs == nil || len(cs.Steps) != 1 {
		t.Errorf("chain %+v (%v)", cs, err)
	}
	if am, err := ld.LoadAgentMode(); err != nil || am == nil || am.Stage != "construct" {
		t.Errorf("agent %+v (%v)", am, err)
	}
	if err := SaveSequence(ld, nil, nil); err != nil {
		t.Fatal(err)
	}
}
