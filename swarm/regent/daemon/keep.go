package daemon

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// Keep runs the Regent as its child, starting it again a second after it dies. While
// another Regent holds the state directory (one started before this keeper), it waits for that
// one to go. A Regent that leaves on purpose closes the window, and this keeper with it; the
// keeper also leaves when the Regent ended on purpose or the state directory is gone.
func Keep(m *worker.Machine) error {
	lock, ok, err := state.TryLock(regent.FilesOf(m.Dir()).Keeper)
	if err != nil {
		return err
	}
	if !ok {
		regent.RemoveOwnPane(m) // another keeper is on it
		return nil
	}
	defer lock.Unlock()
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	// Caught rather than ignored, so the Regent it starts gets default handling back.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	files, rc := regent.FilesOf(m.Dir()), regent.NewClient(m.Dir())
	var deaths []time.Time
	for {
		if rc.Alive() {
			// Blocks, costing nothing, until that Regent is gone.
			if held, err := state.AcquireLock(files.Lock); err == nil {
				held.Unlock()
			}
		}
		clean, err := runKeptChild(regent.Argv(m, exe, "__serve"), 0)
		if _, serr := os.Stat(m.Dir().Root); err != nil || clean || os.IsNotExist(serr) {
			regent.RemoveOwnPane(m)
			return err
		}
		if why := regent.CannotListen(m.Dir()); why != "" {
			// Starting it again would fail the same way every second; the spawn or command
			// that needs it next says why (see Ensure) and tries again.
			regent.RemoveOwnPane(m)
			return fmt.Errorf("the Regent %s; not starting it again", why)
		}
		var loop bool
		if deaths, loop = ralph.CrashLoop(append(deaths, time.Now()), time.Now()); loop {
			recordCrashLoop(m, len(deaths))
			regent.RemoveOwnPane(m)
			return fmt.Errorf("the Regent died %d times in two minutes; not starting it again", len(deaths))
		}
		time.Sleep(time.Second)
	}
}

// runKeptChild runs a kept process until it ends, and reports whether it ended on purpose
// (exit 0); err is only that it could not start. deathSig, when not 0, is sent to it should its
// keeper die first (on Linux; the caller's thread must stay locked to its goroutine).
func runKeptChild(argv []string, deathSig syscall.Signal) (clean bool, err error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// Signals reach the kept process directly (its pid is on record); a new process group
	// keeps the terminal's signals for the keeper's window from reaching it twice.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	endWithParent(cmd.SysProcAttr, deathSig)
	if err := cmd.Start(); err != nil {
		return false, err
	}
	return cmd.Wait() == nil, nil
}
