package swarm

import (
	"os"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/internal/testmachine"
)

func TestRalphCleanNamedLoops(t *testing.T) {
	te := newLoopEnv(t)
	a := te.loop("a", ralph.State{Status: ralph.StatusStopped})
	b := te.loop("b", ralph.State{Status: ralph.StatusRunning})
	testmachine.HoldMonitor(t, b)
	// One name refused: nothing is removed.
	wantErr(t, runRalphClean(te.env, ralphCleanOptions{Names: []string{"a", "b"}}), 1,
		"cannot clean running ralph loop 'b' (pause or kill it first)")
	wantErr(t, runRalphClean(te.env, ralphCleanOptions{Names: []string{"a", "ghost"}}), 2, "no worker named 'ghost'")
	if !a.Exists() {
		t.Fatal("a refused clean removed a loop")
	}
	if err := runRalphClean(te.env, ralphCleanOptions{Names: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "cleaned ralph state for a\n" {
		t.Errorf("printed %q", got)
	}
	if _, err := os.Stat(a.Path); !os.IsNotExist(err) {
		t.Errorf("%s is still there", a.Path)
	}
}

func TestRalphCleanAll(t *testing.T) {
	te := newLoopEnv(t)
	te.loop("a", ralph.State{Status: ralph.StatusStopped})
	b := te.loop("b", ralph.State{Status: ralph.StatusRunning})
	release := testmachine.HoldMonitor(t, b)
	if err := runRalphClean(te.env, ralphCleanOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "cleaned ralph state for a\n" {
		t.Errorf("printed %q", got)
	}
	if !b.Exists() {
		t.Error("--all cleaned a loop whose monitor runs")
	}
	release()
	te.loop("c", ralph.State{})
	if err := runRalphClean(te.env, ralphCleanOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "cleaned ralph state for b\ncleaned ralph state for c\n" {
		t.Errorf("printed %q", got)
	}
	if err := runRalphClean(te.env, ralphCleanOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "nothing to clean\n" {
		t.Errorf("printed %q", got)
	}
}

func TestRalphCleanChecksItsArguments(t *testing.T) {
	wantErr(t, ralphCleanOptions{Names: []string{"a"}, All: true}.check(), 1, "give loop names or --all, not both")
	wantErr(t, ralphCleanOptions{}.check(), 1, "no loop name given (or use --all)")
	wantErr(t, ralphCleanOptions{Names: []string{"../x"}}.check(), 1, "invalid worker name")
	if err := (ralphCleanOptions{All: true}).check(); err != nil {
		t.Error(err)
	}
}
