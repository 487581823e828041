package swarm

import (
	"reflect"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/internal/testmachine"
)

func TestRalphPause(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("p", ralph.State{Status: ralph.StatusRunning, CurrentIteration: 1})
	if err := runRalphPause(te.env, ralphPauseOptions{Args: []string{"p"}}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "paused ralph loop for p\n" {
		t.Errorf("printed %q", got)
	}
	if st := testmachine.LoopState(te.T, ld); st.Status != ralph.StatusPaused || st.ExitReason != "paused" {
		t.Errorf("state %s (%s), want paused (paused)", st.Status, st.ExitReason)
	}
	if got := testmachine.Events(t, ld); !reflect.DeepEqual(got, []string{"[PAUSE] paused by user"}) {
		t.Errorf("log %q", got)
	}

	// Again: a warning, nothing changes.
	if err := runRalphPause(te.env, ralphPauseOptions{Args: []string{"p"}}); err != nil {
		t.Fatal(err)
	}
	if got := te.errText(); got != "swarm: warning: worker 'p' is already paused\n" {
		t.Errorf("stderr %q", got)
	}
	if got := testmachine.Events(t, ld); len(got) != 1 {
		t.Errorf("a second pause was logged: %q", got)
	}
}

func TestRalphPauseOfALoopThatIsNotRunning(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("f", ralph.State{Status: ralph.StatusFailed, ExitReason: "consecutive_failures"})
	if err := runRalphPause(te.env, ralphPauseOptions{Args: []string{"f"}}); err != nil {
		t.Fatal(err)
	}
	if got := te.errText(); got != "swarm: warning: ralph loop for 'f' is not running (failed)\n" {
		t.Errorf("stderr %q", got)
	}
	if st := testmachine.LoopState(te.T, ld); st.Status != ralph.StatusFailed || st.ExitReason != "consecutive_failures" {
		t.Errorf("state changed to %s (%s)", st.Status, st.ExitReason)
	}
}

func TestRalphPauseErrors(t *testing.T) {
	te := newLoopEnv(t)
	te.spawn("plain", "")
	wantErr(t, runRalphPause(te.env, ralphPauseOptions{Args: []string{"plain"}}), 1, "worker 'plain' is not a ralph worker")
	wantErr(t, runRalphPause(te.env, ralphPauseOptions{Args: []string{"ghost"}}), 2, "no worker named 'ghost'")
	wantErr(t, ralphPauseOptions{Args: []string{"a", "b"}}.check(), 1, "usage: swarm ralph pause NAME")
}
