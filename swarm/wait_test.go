package swarm

import (
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/internal/testmachine"
)

func TestEndOfWait(t *testing.T) {
	code := func(n int) *int { return &n }
	stopped := func(c *int) *state.Worker { return &state.Worker{Status: state.StatusStopped, ExitCode: c} }
	for _, c := range []struct {
		name string
		w    *state.Worker
		loop *ralph.State
		line string
		code int
	}{
		{"exited 0", stopped(code(0)), nil, "b: exited 0", 0},
		{"exited 4", stopped(code(4)), nil, "b: exited 4", 4},
		{"code not known", stopped(nil), nil, "b: exited", 1},
		{"record gone", nil, nil, "b: exited", 1},
		{"loop done, agent ended by a signal", stopped(code(143)), &ralph.State{Status: ralph.StatusStopped, ExitReason: "done_pattern"}, "b: exited (loop done)", 0},
		{"loop failed", stopped(code(1)), &ralph.State{Status: ralph.StatusFailed, ExitReason: "consecutive_failures"}, "b: exited (loop failed: consecutive_failures)", 1},
		{"loop stagnated", stopped(code(143)), &ralph.State{Status: ralph.StatusStopped, ExitReason: "stagnated"}, "b: exited (loop stopped: stagnated)", 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			end := endOfWait("b", c.w, c.loop, nil)
			if end.line != c.line || end.code != c.code {
				t.Errorf("endOfWait = %q, %d; want %q, %d", end.line, end.code, c.line, c.code)
			}
		})
	}
}

// A loop parked on a usage limit has no agent running, but it goes on by itself: wait waits
// for it; once it is paused, wait reports it with the loop's code.
func TestWaitWaitsForALoopOnALimit(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("l", ralph.State{Status: ralph.StatusWaiting})
	if err := te.Dir().UpdateWorkers(te.warnErr, func(ws *state.Workers) error {
		ws.Get("l").Metadata = map[string]any{"ralph": true}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	testmachine.HoldMonitor(t, ld)
	w, _, err := te.Load("l")
	if err != nil {
		t.Fatal(err)
	}
	te.exit(w, 143)
	o := waitOptions{Names: []string{"l"}, Timeout: 0.05, Poll: 10 * time.Millisecond, ExitCode: true}
	wantErr(t, runWait(te.env, o), 1, "")
	if got := te.output(); got != "l: still running (timeout)\n" {
		t.Errorf("printed %q", got)
	}
	if _, err := ld.Update(func(s *ralph.State) error { s.Status, s.ExitReason = ralph.StatusPaused, "paused"; return nil }); err != nil {
		t.Fatal(err)
	}
	wantErr(t, runWait(te.env, o), ExitInterrupted, "")
	if got := te.output(); got != "l: exited (loop paused)\n" {
		t.Errorf("printed %q", got)
	}
}
