package loop

import (
	"path/filepath"

	"github.com/swarm-dev/swarm/ralph/driver"
	"github.com/swarm-dev/swarm/ralph/proc"
	"github.com/swarm-dev/swarm/tmux"
)

// panePiper has tmux copy an agent's pane output into its loop's named pipe (see ralph's
// phase_feed.go) and stops it.
type panePiper struct{ tm *tmux.Exec }

// outputPiperFor is the piper for a tmux client; nil (the screen is polled) for one that is
// not the real tmux.
func outputPiperFor(tm tmux.Client) driver.OutputPiper {
	if t, ok := tm.(*tmux.Exec); ok {
		return panePiper{t}
	}
	return nil
}

func (p panePiper) PipeOutput(paneID, fifo string) error { return p.tm.PipeOutput(paneID, fifo) }

// StopOutput ends the pane's copier, and tmux closes the pane's pipe when it sees it go. Asking
// tmux to close it would not do: it refuses for a pane whose program has ended (the usual case
// at a loop's end), whose copier would then wait for the pane's next output or its removal.
func (p panePiper) StopOutput(fifo string) {
	if abs, err := filepath.Abs(fifo); err == nil {
		proc.EndStdoutTo(abs)
	}
}
