package swarm

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"time"

	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// waitReady waits, as spawn --ready-wait does, until the worker's agent shows an input prompt
// (see worker.Machine.WaitReady). On a terminal it shows what it waits for (see readyProgress).
// A signal on sigs ends the wait: the error says which.
func waitReady(e *env, w *state.Worker, timeout time.Duration, pattern *regexp.Regexp, sigs <-chan os.Signal) error {
	if w.Tmux == nil {
		return fail("--ready-wait needs a tmux worker (add --tmux)")
	}
	show := progressOn(e.stderr)
	defer show("")
	err := e.WaitReady(w, worker.ReadyWait{Timeout: timeout, Pattern: pattern, Signals: sigs,
		Progress: func(waited time.Duration, seen screen.State) { show(readyProgress(w.Name, waited, seen)) }})
	var nr *worker.NotReadyError
	if errors.As(err, &nr) && nr.Dialog == "" {
		return fail("worker '%s' not ready after %s (no input prompt seen; use --ready-pattern if the agent's prompt is unusual)", nr.Name, nr.After)
	}
	return err
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
