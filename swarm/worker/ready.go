package worker

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"time"

	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
)

// ReadyWait is how WaitReady waits for a worker's agent.
type ReadyWait struct {
	Timeout time.Duration
	// Pattern is the agent's input prompt, when it is not one screen.Classify knows.
	Pattern *regexp.Regexp
	// Signals ends the wait with an *InterruptedError when one comes.
	Signals <-chan os.Signal
	// Progress, when set, is told before each look how long the wait has lasted and what
	// the last look saw.
	Progress func(waited time.Duration, seen screen.State)
}

// NotReadyError is a wait that ran out of time: the agent showed no input prompt, or a
// dialog (named in Dialog) stood in the way.
type NotReadyError struct {
	Name   string
	After  time.Duration
	Dialog string
}

func (e *NotReadyError) Error() string {
	if e.Dialog != "" {
		return fmt.Sprintf("worker '%s' not ready after %s: blocked by %s", e.Name, e.After, screen.DialogDescription(e.Dialog))
	}
	return fmt.Sprintf("worker '%s' not ready after %s (no input prompt seen)", e.Name, e.After)
}

// WaitReady polls a tmux worker's screen until the agent shows an input prompt. It ends
// early, with an error that says so, when the worker exits or a signal comes.
func (m *Machine) WaitReady(w *state.Worker, rw ReadyWait) error {
	if w.Tmux == nil {
		return fmt.Errorf("worker '%s' has no screen to wait on (it does not run in tmux)", w.Name)
	}
	start := time.Now()
	deadline := start.Add(rw.Timeout)
	var last screen.State
	for {
		if rw.Progress != nil {
			rw.Progress(time.Since(start), last)
		}
		seen, err := m.lookReady(w, rw)
		if err != nil {
			return err
		}
		if seen != nil {
			last = *seen
			if last.Kind == screen.Ready {
				return nil
			}
		}
		if time.Now().After(deadline) {
			nr := &NotReadyError{Name: w.Name, After: rw.Timeout}
			if last.Kind == screen.Dialog {
				nr.Dialog = last.Dialog
			}
			return nr
		}
		select {
		case sig := <-rw.Signals:
			return &InterruptedError{Signal: sig, Before: fmt.Sprintf("'%s' was ready", w.Name)}
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// lookReady is one look at the worker's screen: what it shows (nil when it could not be
// read), or why the wait is over.
func (m *Machine) lookReady(w *state.Worker, rw ReadyWait) (*screen.State, error) {
	p, ok := m.OwnPane(w)
	if !ok || p.Dead {
		// A tmux client ended by the same Ctrl-C (it runs in the terminal's process group),
		// or too slow to answer, says nothing of the pane: a signal on its way ends the
		// wait as one, and the pane is asked after again before it is said to be gone.
		if sig, got := signalWithin(rw.Signals, 200*time.Millisecond); got {
			return nil, &InterruptedError{Signal: sig, Before: fmt.Sprintf("'%s' was ready", w.Name)}
		}
		p, ok = m.OwnPane(w)
	}
	if !ok || p.Dead {
		msg := fmt.Sprintf("worker '%s' exited before it was ready", w.Name)
		if code := m.ExitCode(w.Name, p); code != nil {
			msg += fmt.Sprintf(" (exit %d)", *code)
		}
		return nil, errors.New(msg)
	}
	text, err := m.TmuxFor(w).Capture(w.Tmux.PaneID, 0)
	if err != nil {
		return nil, nil
	}
	st := screen.Classify(text, rw.Pattern)
	return &st, nil
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
