package worker

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

// SplitLines is text as lines, without an empty last one for a final newline.
func SplitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// ScreenLines returns the worker's output as lines: the tmux pane (history lines of scrollback
// above the screen; -1 for all; see PaneLines) or, for a process worker, its stdout (or
// stderr) log.
func (m *Machine) ScreenLines(w *state.Worker, history int, stream string) ([]string, error) {
	if w.Tmux != nil {
		return m.PaneLines(w, history)
	}
	return m.LogLines(w, stream)
}

// LogLines is a process worker's stdout (or stderr) log as lines, without its colours.
func (m *Machine) LogLines(w *state.Worker, stream string) ([]string, error) {
	data, err := os.ReadFile(m.dir.LogPath(w.Name, stream))
	if err != nil {
		return nil, fmt.Errorf("no log for worker '%s': %w", w.Name, err)
	}
	return screen.TrimBlankTail(SplitLines(stripansi.Strip(string(data)))), nil
}

// PaneLines is a tmux worker's output: its pane without tmux's own dead-pane note, or the
// screen kept when its pane went away.
func (m *Machine) PaneLines(w *state.Worker, history int) ([]string, error) {
	gone := fmt.Errorf("worker '%s' has no screen any more (its tmux window is gone)", w.Name)
	if _, err := m.TmuxFor(w).PaneNow(w.Tmux.PaneID); errors.Is(err, tmux.ErrNotAnswering) {
		return nil, fmt.Errorf("cannot read the screen of '%s': %w", w.Name, err)
	}
	if _, own := m.OwnPane(w); own {
		out, err := m.TmuxFor(w).Capture(w.Tmux.PaneID, history)
		if err != nil {
			return nil, gone
		}
		return PaneOutput(out), nil
	}
	if kept, ok := m.KeptScreen(w.Name); ok {
		return kept, nil
	}
	return nil, gone
}

// PaneOutput is a captured pane as lines: without tmux's own dead-pane note and the blank
// padding below the last line.
func PaneOutput(captured string) []string {
	var lines []string
	for _, l := range SplitLines(captured) {
		if !tmux.IsDeadNote(l) {
			lines = append(lines, l)
		}
	}
	return screen.TrimBlankTail(lines)
}
