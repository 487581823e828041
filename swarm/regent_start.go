package swarm

import (
	"fmt"
	"os"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/tmux"
)

// How commands start the Regent of a state directory and wait for it. What they say to it
// once it runs, and the files it keeps, are package regent's.

// regentSession hosts the Regent (and the heartbeat runner) on swarm's private tmux server.
// The Regent runs under a small keeper that starts it again when it dies, and tmux restarts
// the keeper when it dies (see tmux.ReviveOnDeath): the loops survive either crashing with no
// swarm command run in between.
const regentSession = "swarm-regent"

// regentWindow is the Regent's window in the regent session.
const regentWindow = "regent"

// ensureRegent makes sure the state directory's Regent runs and has looked at every loop:
// it wakes a running one, or starts one in the regent session of e's tmux server. The start
// lock orders this against a Regent that is leaving: either the leaving Regent sees the loop
// that made the caller come, or the caller sees it gone and starts another.
func ensureRegent(e *env) error {
	start, err := state.AcquireLock(regent.FilesOf(e.Dir()).Start)
	if err != nil {
		return err
	}
	defer start.Unlock()
	rc := regent.NewClient(e.Dir())
	if rc.Alive() {
		_ = rc.Wake()
		return nil
	}
	if regentGivenUp(e.Dir()) != "" {
		return errRegentGivenUp
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	_ = os.Remove(regent.FilesOf(e.Dir()).Error)
	argv := regentArgv(e, exe, "__keep")
	p, err := startRevived(e, regentWindow, argv)
	if err != nil {
		return fmt.Errorf("cannot start the Regent: %v", err)
	}
	// Until it answers, or says why it cannot: a Regent that cannot listen would leave every
	// loop undriven while the spawn looked fine.
	waitFor(5*time.Second, func() bool {
		return rc.Answers() || regent.CannotListen(e.Dir()) != "" || !e.Procs().Alive(p.PID, 0)
	})
	if why := regent.CannotListen(e.Dir()); why != "" {
		return fmt.Errorf("the Regent cannot run: %s (see 'swarm regent logs')", why)
	}
	return nil
}

// startRevived runs argv in a window of the regent session that tmux revives whenever its
// program dies (a program that ends on purpose closes its window first, see removeOwnPane).
func startRevived(e *env, window string, argv []string) (tmux.Pane, error) {
	p, err := e.Tmux().NewWindow(tmux.Spec{Session: regentSession, Window: window, Cwd: "/", Argv: argv})
	if err != nil {
		return tmux.Pane{}, err
	}
	if err := e.Tmux().ReviveOnDeath(p.ID); err != nil {
		_ = e.Tmux().KillPane(p.ID)
		return tmux.Pane{}, err
	}
	return p, nil
}

// removeOwnPane closes the window this process runs in, so tmux does not revive a program
// that leaves on purpose.
func removeOwnPane(e *env) {
	if pane := tmux.CurrentPane(); pane != "" {
		_ = e.Tmux().KillPane(pane)
	}
}

// regentArgv runs a hidden regent command of this executable on this state directory and
// tmux server, wherever it starts.
func regentArgv(e *env, exe, command string) []string {
	return []string{exe, "--swarm-dir", e.Dir().Root, "--tmux-socket", e.Tmux().Socket(), "regent", command}
}

// regentSettled waits briefly for a Regent that has nothing left to do to leave, so a kill of
// the last loops returns with nothing of them running.
func regentSettled(e *env) {
	rc := regent.NewClient(e.Dir())
	if !rc.Alive() || loopsNeedRegent(e) {
		return
	}
	_ = rc.Wake()
	waitFor(5*time.Second, func() bool { return !rc.Alive() || loopsNeedRegent(e) })
}

// loopsNeedRegent reports whether any supervised loop should be running.
func loopsNeedRegent(e *env) bool {
	for _, name := range e.LoopNames() {
		if needsRegent(ralph.DirFor(e.Dir(), name)) {
			return true
		}
	}
	return false
}
