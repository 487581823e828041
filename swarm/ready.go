package swarm

import (
	"fmt"
	"regexp"
	"time"

	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
)

// waitReady polls the worker's screen until the agent shows an input prompt.
func waitReady(e *env, w *state.Worker, timeout time.Duration, pattern *regexp.Regexp) error {
	if w.Tmux == nil {
		return fail("--ready-wait needs a tmux worker (add --tmux)")
	}
	deadline := time.Now().Add(timeout)
	var last screen.State
	for {
		p, ok := e.ownPane(w)
		if !ok || p.Dead {
			msg := fmt.Sprintf("worker '%s' exited before it was ready", w.Name)
			if code := e.exitCode(w.Name, p); code != nil {
				msg += fmt.Sprintf(" (exit %d)", *code)
			}
			return fail("%s", msg)
		}
		text, err := e.tmuxFor(w).Capture(w.Tmux.PaneID, 0)
		if err == nil {
			last = screen.Classify(text, pattern)
			if last.Kind == screen.Ready {
				return nil
			}
		}
		if time.Now().After(deadline) {
			if last.Kind == screen.Dialog {
				return fail("worker '%s' not ready after %s: blocked by %s", w.Name, timeout, screen.DialogDescription(last.Dialog))
			}
			return fail("worker '%s' not ready after %s (no input prompt seen; use --ready-pattern if the agent's prompt is unusual)", w.Name, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
