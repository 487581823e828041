package swarm

import (
	"fmt"

	"github.com/swarm-dev/swarm/state"
)

// screenLines returns the worker's output as lines, for peek and logs (see
// worker.Machine.ScreenLines); below the screen of a tmux worker that ended, how it ended.
func screenLines(e *env, w *state.Worker, history int, stream string) ([]string, error) {
	lines, err := e.ScreenLines(w, history, stream)
	if err != nil || w.Tmux == nil {
		return lines, err
	}
	if loop := workerLoop(e, w); loop != nil && w.Status != state.StatusRunning {
		if sw := loopStateWord(w.Status, loop); sw.ended() {
			lines = append(lines, sw.inWords())
		}
	} else if w.Status != state.StatusRunning && w.ExitCode != nil {
		lines = append(lines, fmt.Sprintf("exited %d", *w.ExitCode))
	}
	return lines, nil
}
