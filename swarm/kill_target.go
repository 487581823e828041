package swarm

import (
	"fmt"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// loopStanding says where an unfinished loop stands when no agent of it runs.
func loopStanding(st *ralph.State) string {
	switch {
	case st.Status == ralph.StatusPaused:
		return "paused"
	case st.Status == ralph.StatusWaiting:
		return "waiting for a usage limit to reset"
	case st.Phase == ralph.PhaseBackoff:
		return "in backoff"
	}
	return "between agents"
}

// killReport is what kill says it did to t, decided on t as it was before the kill.
func killReport(t worker.KillTarget) string {
	switch {
	case worker.WorkerLive(t.Worker):
		return "killed " + t.Name
	case worker.LoopUnfinished(t.Loop) && t.Worker == nil:
		return fmt.Sprintf("killed %s (its ralph loop was %s; its worker record was already gone)", t.Name, loopStanding(t.Loop))
	case worker.LoopUnfinished(t.Loop):
		return fmt.Sprintf("killed %s (its ralph loop was %s; no agent was running)", t.Name, loopStanding(t.Loop))
	case t.Worker != nil:
		return fmt.Sprintf("%s: not running (%s)", t.Name, t.Worker.Status)
	case t.Loop != nil:
		return fmt.Sprintf("%s: not running (ralph loop %s)", t.Name, t.Loop.Status)
	}
	return t.Name + ": not running"
}
