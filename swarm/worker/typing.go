package worker

import (
	"fmt"
	"time"

	"github.com/swarm-dev/swarm/state"
)

// inputSettle lets a TUI finish taking in a paste before Enter arrives; some read an Enter that
// comes in the same burst as part of the pasted text.
const inputSettle = 150 * time.Millisecond

// Type types text into the worker's tmux pane, one typist at a time: a heartbeat's clearing
// of the line must not land between a send's paste and its Enter. clean clears the line
// first (and pastes bracketed); enter presses Enter after the text.
func (m *Machine) Type(w *state.Worker, text string, clean, enter bool) error {
	if m.Dir() != nil {
		lock, ok, err := m.Dir().LockInput(w.Name)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("worker '%s': something else has been typing into its pane for %s", w.Name, state.TypingWait)
		}
		defer lock.Unlock()
	}
	tm, pane := m.TmuxFor(w), w.Tmux.PaneID
	if clean {
		// C-u alone: an Escape would interrupt an agent at work (Claude Code, Codex), and an
		// Escape sent together with C-u reads as Alt-C-u, which clears nothing.
		if err := tm.SendKeys(pane, "C-u"); err != nil {
			return err
		}
	}
	if err := tm.Paste(pane, text, clean); err != nil {
		return err
	}
	if enter {
		if text != "" {
			time.Sleep(inputSettle)
		}
		return tm.SendKeys(pane, "Enter")
	}
	return nil
}
