package swarm

import (
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

func TestKillReport(t *testing.T) {
	worker := func(status string) *state.Worker { return &state.Worker{Name: "w", Status: status} }
	loop := func(s ralph.Status, p ralph.Phase) *ralph.State { return &ralph.State{Status: s, Phase: p} }
	cases := []struct {
		name string
		t    killTarget
		live bool
		want string
	}{
		{"running worker", killTarget{w: worker(state.StatusRunning)}, true, "killed w"},
		{"orphaned worker", killTarget{w: worker(state.StatusOrphaned)}, true, "killed w"},
		{"running loop with its agent", killTarget{w: worker(state.StatusRunning), loop: loop(ralph.StatusRunning, ralph.PhaseWorking)}, true, "killed w"},
		{"loop in backoff", killTarget{w: worker(state.StatusStopped), loop: loop(ralph.StatusRunning, ralph.PhaseBackoff)}, true,
			"killed w (its ralph loop was in backoff; no agent was running)"},
		{"loop between agents", killTarget{w: worker(state.StatusStopped), loop: loop(ralph.StatusRunning, ralph.PhaseEnded)}, true,
			"killed w (its ralph loop was between agents; no agent was running)"},
		{"loop waiting for a limit", killTarget{w: worker(state.StatusStopped), loop: loop(ralph.StatusWaiting, ralph.PhaseWaiting)}, true,
			"killed w (its ralph loop was waiting for a usage limit to reset; no agent was running)"},
		{"paused loop", killTarget{w: worker(state.StatusStopped), loop: loop(ralph.StatusPaused, ralph.PhaseEnded)}, true,
			"killed w (its ralph loop was paused; no agent was running)"},
		{"loop without a record", killTarget{loop: loop(ralph.StatusRunning, ralph.PhaseBackoff)}, true,
			"killed w (its ralph loop was in backoff; its worker record was already gone)"},
		{"stopped worker", killTarget{w: worker(state.StatusStopped)}, false, "w: not running (stopped)"},
		{"stopped worker, finished loop", killTarget{w: worker(state.StatusStopped), loop: loop(ralph.StatusFailed, ralph.PhaseEnded)}, false,
			"w: not running (stopped)"},
		{"finished loop without a record", killTarget{loop: loop(ralph.StatusStopped, ralph.PhaseEnded)}, false,
			"w: not running (ralph loop stopped)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.t.name = "w"
			if got := c.t.live(); got != c.live {
				t.Errorf("live() = %v, want %v", got, c.live)
			}
			if got := killReport(c.t); got != c.want {
				t.Errorf("killReport = %q, want %q", got, c.want)
			}
		})
	}
}
