package regent

import (
	"fmt"
	"os"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/worker"
	"github.com/swarm-dev/swarm/tmux"
)

// How commands start the Regent of a state directory and wait for it.

// Session is where the Regent runs, on swarm's private tmux server.
// The Regent runs under a small keeper that starts it again when it dies, and tmux restarts
// the keeper when it dies (see tmux.ReviveOnDeath): the loops survive either crashing with no
// swarm command run in between.
const Session = "swarm-regent"

// window is the Regent's window in the regent session.
const window = "regent"

// Ensure makes sure the state directory's Regent runs and has looked at every loop: it wakes
// a running one, or starts one in the regent session of m's tmux server. The start lock orders
// this against a Regent that is leaving: either the leaving Regent sees the loop that made
// the caller come, or the caller sees it gone and starts another.
func Ensure(m *worker.Machine) error {
	start, err := state.AcquireLock(FilesOf(m.Dir()).Start)
	if err != nil {
		return err
	}
	defer start.Unlock()
	rc := NewClient(m.Dir())
	if rc.Alive() {
		_ = rc.Wake()
		return nil
	}
	if GivenUp(m.Dir()) != "" {
		return ErrGivenUp
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	_ = os.Remove(FilesOf(m.Dir()).Error)
	p, err := StartRevived(m, window, Argv(m, exe, "__keep"))
	if err != nil {
		return fmt.Errorf("cannot start the Regent: %w", err)
	}
	// Until it answers, or says why it cannot: a Regent that cannot listen would leave every
	// loop undriven while the spawn looked fine.
	waitFor(5*time.Second, func() bool {
		return rc.Answers() || CannotListen(m.Dir()) != "" || !m.Procs().Alive(p.PID, 0)
	})
	if why := CannotListen(m.Dir()); why != "" {
		return fmt.Errorf("the Regent cannot run: %s (see 'swarm regent logs')", why)
	}
	return nil
}

// StartRevived runs argv in a window of the regent session that tmux revives whenever its
// program dies (a program that ends on purpose closes its window first, see RemoveOwnPane).
func StartRevived(m *worker.Machine, window string, argv []string) (tmux.Pane, error) {
	p, err := m.Tmux().NewWindow(tmux.Spec{Session: Session, Window: window, Cwd: "/", Argv: argv})
	if err != nil {
		return tmux.Pane{}, err
	}
	if err := m.Tmux().ReviveOnDeath(p.ID); err != nil {
		_ = m.Tmux().KillPane(p.ID)
		return tmux.Pane{}, err
	}
	return p, nil
}

// RemoveOwnPane closes the window this process runs in, so tmux does not revive a program
// that leaves on purpose.
func RemoveOwnPane(m *worker.Machine) {
	if pane := tmux.CurrentPane(); pane != "" {
		_ = m.Tmux().KillPane(pane)
	}
}

// Argv runs a hidden `swarm regent` command of this executable on this state directory and
// tmux server, wherever it starts: the Regent and its keeper are swarm's own processes.
func Argv(m *worker.Machine, exe, command string) []string {
	return []string{exe, "--swarm-dir", m.Dir().Root, "--tmux-socket", m.Tmux().Socket(), "regent", command}
}

// Settled waits briefly for a Regent that has nothing left to do to leave, so a kill of the
// last loops returns with nothing of them running.
func Settled(m *worker.Machine) {
	rc := NewClient(m.Dir())
	needed := func() bool { return loopsNeedRegent(m) || heartbeatsActive(m) }
	if !rc.Alive() || needed() {
		return
	}
	_ = rc.Wake()
	waitFor(5*time.Second, func() bool { return !rc.Alive() || needed() })
}

// loopsNeedRegent reports whether any supervised loop should be running.
func loopsNeedRegent(m *worker.Machine) bool {
	for _, name := range m.LoopNames() {
		if NeedsRegent(ralph.DirFor(m.Dir(), name)) {
			return true
		}
	}
	return false
}

// Revive starts the Regent when a supervised loop needs it and neither it nor its keeper
// runs (the keeper's tmux session was killed, then the Regent died): every command that reads
// loop state calls it, so loops are not left unwatched until the next spawn or resume. What
// it did, or why it could not, is told as a warning.
func Revive(m *worker.Machine) {
	rc := NewClient(m.Dir())
	if rc.Alive() || !loopsLeftByRegent(m) {
		return
	}
	// Given up is said even while the keeper that gave up is still on its way out.
	if GivenUp(m.Dir()) != "" {
		m.Warnf("%v", ErrGivenUp)
		return
	}
	if state.IsLocked(FilesOf(m.Dir()).Keeper) {
		return
	}
	if err := Ensure(m); err != nil {
		m.Warnf("loops need the Regent, which is not running and cannot be started: %v", err)
		return
	}
	m.Warnf("loops needed the Regent, which was not running (nor its keeper); started it again (pid %d)", rc.PID())
}

// loopsLeftByRegent reports whether a supervised loop that needs the Regent was left by a
// monitor that died (one never driven, made with --no-run, waits for 'swarm ralph run').
func loopsLeftByRegent(m *worker.Machine) bool {
	for _, name := range m.LoopNames() {
		ld := ralph.DirFor(m.Dir(), name)
		if st, err := ld.Load(); err == nil && st.MonitorPID != 0 && Drives(ld, st) && !ld.MonitorAlive() {
			return true
		}
	}
	return false
}

// LoopsDriven reports whether every supervised loop that should run has its monitor.
func LoopsDriven(m *worker.Machine) bool {
	for _, name := range m.LoopNames() {
		if ld := ralph.DirFor(m.Dir(), name); NeedsRegent(ld) && !ld.MonitorAlive() {
			return false
		}
	}
	return true
}

// Restart has the running Regent, if any, leave its loops to a new one, and starts that one
// (the user's word that it may run again after a crash loop). It returns the pids of the
// Regent before and after, 0 for none: none runs after when no loop needs it.
func Restart(m *worker.Machine) (old, pid int, err error) {
	rc := NewClient(m.Dir())
	old = rc.PID()
	if old != 0 {
		if err := rc.Quit(); err != nil {
			return old, 0, fmt.Errorf("cannot restart the Regent: %w", err)
		}
		waitFor(10*time.Second, func() bool { return !rc.Alive() })
		if rc.Alive() {
			return old, 0, fmt.Errorf("the Regent (pid %d) did not leave within 10s", old)
		}
	}
	_ = os.Remove(FilesOf(m.Dir()).CrashLoop)
	if err := Ensure(m); err != nil {
		return old, 0, err
	}
	// Back when every loop that needs it is the new Regent's again: its lock held and its
	// state naming the Regent, as status shows it (the lock is taken a moment before).
	waitFor(10*time.Second, func() bool { return loopsClaimed(m, rc.PID()) })
	return old, rc.PID(), nil
}

// loopsClaimed reports whether every loop that needs the Regent is driven by the Regent pid:
// its monitor lock held, and its state naming pid as its monitor.
func loopsClaimed(m *worker.Machine, pid int) bool {
	for _, name := range m.LoopNames() {
		ld := ralph.DirFor(m.Dir(), name)
		st, err := ld.Load()
		if err != nil || !Drives(ld, st) {
			continue
		}
		if pid <= 0 || st.MonitorPID != pid || !ld.MonitorAlive() {
			return false
		}
	}
	return true
}

// waitFor polls cond until it holds or d has passed.
func waitFor(d time.Duration, cond func() bool) {
	deadline := time.Now().Add(d)
	for !cond() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}
