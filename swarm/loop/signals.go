package loop

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// A monitor in a terminal stops the way a person expects: a signal pauses, a second one ends.

// pauseOnSignals makes SIGTERM and a first SIGINT pause the loop after the current iteration,
// and SIGQUIT or a second SIGINT end the agent at once (abort cancels the loop's context). It
// returns what undoes it.
func pauseOnSignals(name string, ld ralph.Dir, out io.Writer, abort context.CancelFunc) func() {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGHUP)
	go handleSignals(sigs, name, ld, out, abort)
	return func() {
		signal.Stop(sigs)
		// No signal is delivered once Stop has returned.
		close(sigs)
	}
}

func handleSignals(sigs <-chan os.Signal, name string, ld ralph.Dir, out io.Writer, abort context.CancelFunc) {
	interrupts := 0
	for s := range sigs {
		switch s {
		case syscall.SIGHUP:
			// The terminal of a foreground loop went away; the loop goes on.
			continue
		case syscall.SIGQUIT:
			abort()
			return
		case syscall.SIGINT:
			interrupts++
			if interrupts > 1 {
				abort()
				return
			}
		}
		PauseForSignal(ld, name, worker.SignalName(s), out)
	}
}

// PauseForSignal says that the loop got signal sig and pauses it after the current iteration.
func PauseForSignal(ld ralph.Dir, name, sig string, out io.Writer) {
	fmt.Fprintf(out, "[ralph] %s: received %s, pausing after the current iteration (again or SIGQUIT: stop now)\n", name, sig)
	_, _, _ = ld.Transition(time.Now(), func(st *ralph.State) (ralph.Decision, error) {
		return ralph.Pause(st, "signal "+sig, "signal")
	})
}
