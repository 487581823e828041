package swarm

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/acarl005/stripansi"

	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
)

// A worker's output as lines of text, for peek and logs.

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// screenLines returns the worker's output as lines: the tmux pane (history lines of scrollback
// above the screen; -1 for all) or, for a process worker, its stdout (or stderr) log.
func screenLines(e *env, w *state.Worker, history int, stream string) ([]string, error) {
	if w.Tmux != nil {
		return paneLines(e, w, history)
	}
	data, err := os.ReadFile(e.dir.LogPath(w.Name, stream))
	if err != nil {
		return nil, fail("no log for worker '%s': %w", w.Name, err)
	}
	return screen.TrimBlankTail(splitLines(stripansi.Strip(string(data)))), nil
}

// paneLines is a tmux worker's output: its pane without tmux's own dead-pane note, or the
// screen kept when its pane went away; a worker that ended says how.
func paneLines(e *env, w *state.Worker, history int) ([]string, error) {
	gone := fail("worker '%s' has no screen any more (its tmux window is gone)", w.Name)
	var lines []string
	if _, err := e.tmuxFor(w).PaneNow(w.Tmux.PaneID); errors.Is(err, tmux.ErrNotAnswering) {
		return nil, fail("cannot read the screen of '%s': %w", w.Name, err)
	}
	if _, own := e.ownPane(w); own {
		out, err := e.tmuxFor(w).Capture(w.Tmux.PaneID, history)
		if err != nil {
			return nil, gone
		}
		lines = paneOutput(out)
	} else if kept, ok := e.keptScreen(w.Name); ok {
		lines = kept
	} else {
		return nil, gone
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

// paneOutput is a captured pane as lines: without tmux's own dead-pane note and the blank
// padding below the last line.
func paneOutput(captured string) []string {
	var lines []string
	for _, l := range splitLines(captured) {
		if !tmux.IsDeadNote(l) {
			lines = append(lines, l)
		}
	}
	return screen.TrimBlankTail(lines)
}
