package swarm

import (
	"time"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
)

// stopWorker ends a worker's whole process group (SIGTERM, grace, SIGKILL), removes its window
// and records it as stopped. It returns the exit code when one was observed.
func stopWorker(e *env, w *state.Worker, grace time.Duration) {
	var exit *int
	if w.Tmux != nil {
		if p, err := e.tm.Pane(w.Tmux.PaneID); err == nil {
			if !p.Dead {
				e.procs.KillGroup(p.PID, grace)
			}
			p2, _ := e.tm.Pane(w.Tmux.PaneID)
			exit = e.exitCode(w.Name, p2)
			_ = e.tm.KillPane(w.Tmux.PaneID)
		}
		_ = e.tm.KillSessionIfEmpty(w.Tmux.Session)
	} else {
		if e.procs.Alive(w.PID, pidStart(w)) {
			e.procs.KillGroup(w.PID, grace)
		}
		exit = e.exitCode(w.Name, tmux.Pane{})
	}
	_ = e.dir.UpdateWorkers(e.warnErr, func(ws *state.Workers) error {
		cur := ws.Get(w.Name)
		if cur == nil {
			return nil
		}
		cur.Status = state.StatusStopped
		if exit != nil {
			cur.ExitCode = exit
		}
		return nil
	})
	w.Status = state.StatusStopped
	if exit != nil {
		w.ExitCode = exit
	}
}
