package swarm

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"time"

	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
)

// waitReady polls the worker's screen until the agent shows an input prompt. On a terminal
// it shows what it waits for (see readyProgress). A signal on sigs ends the wait: the error
// says which.
func waitReady(e *env, w *state.Worker, timeout time.Duration, pattern *regexp.Regexp, sigs <-chan os.Signal) error {
	if w.Tmux == nil {
		return fail("--ready-wait needs a tmux worker (add --tmux)")
	}
	start := time.Now()
	deadline := start.Add(timeout)
	var last screen.State
	show := progressOn(e.stderr)
	defer show("")
	for {
		show(readyProgress(w.Name, time.Since(start), last))
		p, ok := e.ownPane(w)
		if !ok || p.Dead {
			// A tmux client ended by the same Ctrl-C (it runs in the terminal's process group),
			// or too slow to answer, says nothing of the pane: a signal on its way ends the
			// wait as one, and the pane is asked after again before it is said to be gone.
			if sig, got := signalWithin(sigs, 200*time.Millisecond); got {
				return interrupted(sig, "interrupted (%s) before '%s' was ready", signalName(sig), w.Name)
			}
			p, ok = e.ownPane(w)
		}
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
		select {
		case sig := <-sigs:
			return interrupted(sig, "interrupted (%s) before '%s' was ready", signalName(sig), w.Name)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// signalWithin returns a signal that comes on sigs within d, if one does.
func signalWithin(sigs <-chan os.Signal, d time.Duration) (os.Signal, bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case sig := <-sigs:
		return sig, true
	case <-t.C:
		return nil, false
	}
}

// readyProgress is the line a terminal shows while spawn --ready-wait waits: for the input
// prompt, or for the user to answer the dialog in the way, named as it appears.
func readyProgress(name string, waited time.Duration, st screen.State) string {
	secs := int(waited.Seconds())
	if st.Kind == screen.Dialog {
		return fmt.Sprintf("%s is waiting at %s; answer it with 'swarm attach %s' (%ds)", name, screen.DialogDescription(st.Dialog), name, secs)
	}
	return fmt.Sprintf("waiting for %s's input prompt (%ds)", name, secs)
}

// progressOn returns what shows a progress line on w, rewritten in place, when w is a
// terminal ("" clears it); elsewhere it does nothing, so scripts and logs get no progress.
func progressOn(w io.Writer) func(string) {
	if !writesToTerminal(w) {
		return func(string) {}
	}
	shown := ""
	return func(line string) {
		if line == shown {
			return
		}
		shown = line
		fmt.Fprint(w, "\r\x1b[K"+line)
	}
}
