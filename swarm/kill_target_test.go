package swarm

import (
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/worker"
)

func TestKillReport(t *testing.T) {
	record := func(status string) *state.Worker { return &state.Worker{Name: "w", Status: status} }
	loop := func(s ralph.Status, p ralph.Phase) *ralph.State { return &ralph.State{Status: s, Phase: p} }
	cases := []struct {
		name string
		t    worker.KillTarget
		live bool
		want string
	}{
		{"running worker", worker.KillTarget{Worker: record(state.StatusRunning)}, true, "killed w"},
		{"orphaned worker", worker.KillTarget{Worker: record(state.StatusOrphaned)}, true, "killed w"},
		{"running loop with its agent", worker.KillTarget{Worker: record(state.StatusRunning), Loop: loop(ralph.StatusRunning, ralph.PhaseWorking)}, true, "killed w"},
		{"loop in backoff", worker.KillTarget{Worker: record(state.StatusStopped), Loop: loop(ralph.StatusRunning, ralph.PhaseBackoff)}, true,
			"killed w (its ralph loop was in backoff; no agent was running)"},
		{"loop between agents", worker.KillTarget{Worker: record(state.StatusStopped), Loop: loop(ralph.StatusRunning, ralph.PhaseEnded)}, true,
			"killed w (its ralph loop was between agents; no agent was running)"},
		{"loop waiting for a limit", worker.KillTarget{Worker: record(state.StatusStopped), Loop: loop(ralph.StatusWaiting, ralph.PhaseWaiting)}, true,
			"killed w (its ralph loop was waiting for a usage limit to reset; no agent was running)"},
		{"paused loop", worker.KillTarget{Worker: record(state.StatusStopped), Loop: loop(ralph.StatusPaused, ralph.PhaseEnded)}, true,
			"killed w (its ralph loop was paused; no agent was running)"},
		{"loop without a record", worker.KillTarget{Loop: loop(ralph.StatusRunning, ralph.PhaseBackoff)}, true,
			"killed w (its ralph loop was in backoff; its worker record was already gone)"},
		{"stopped worker", worker.KillTarget{Worker: record(state.StatusStopped)}, false, "w: not running (stopped)"},
		{"stopped worker, finished loop", worker.KillTarget{Worker: record(state.StatusStopped), Loop: loop(ralph.StatusFailed, ralph.PhaseEnded)}, false,
			"w: not running (stopped)"},
		{"finished loop without a record", worker.KillTarget{Loop: loop(ralph.StatusStopped, ralph.PhaseEnded)}, false,
			"w: not running (ralph loop stopped)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.t.Name = "w"
			if got := c.t.Live(); got != c.live {
				t.Errorf("Live() = %v, want %v", got, c.live)
			}
			if got := killReport(c.t); got != c.want {
				t.Errorf("killReport = %q, want %q", got, c.want)
			}
		})
	}
}
