package swarm

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
)

// How commands find and talk to the Regent of a state directory. The Regent holds
// regent.lock for its whole life (so at most one runs, and "is it alive" never trusts a pid),
// describes itself in regent.json, and answers requests on a Unix socket in the state
// directory (regent.sock). The directory is the user's alone (0700), so no other user can
// claim the socket's name before the Regent binds it, or reach it; peers of another user are
// refused all the same. A path too long for a socket address (108 bytes) falls back to a
// name in the abstract namespace drawn at random each time a Regent starts and recorded in
// regent.json: no one can know it before it is bound.

// regentSession hosts the Regent (and the heartbeat runner) on swarm's private tmux server.
// The Regent runs under a small keeper that starts it again when it dies, and tmux restarts
// the keeper when it dies (see tmux.ReviveOnDeath): the loops survive either crashing with no
// swarm command run in between.
const regentSession = "swarm-regent"

// regentWindow is the Regent's window in the regent session.
const regentWindow = "regent"

func regentLockPath(d *state.Dir) string   { return filepath.Join(d.Root, "regent.lock") }
func regentKeeperPath(d *state.Dir) string { return filepath.Join(d.Root, "regent.keeper.lock") }
func regentStartPath(d *state.Dir) string  { return filepath.Join(d.Root, "regent.start.lock") }
func regentInfoPath(d *state.Dir) string   { return filepath.Join(d.Root, "regent.json") }
func regentLogPath(d *state.Dir) string    { return filepath.Join(d.Root, "regent.log") }
func regentSocketPath(d *state.Dir) string { return filepath.Join(d.Root, "regent.sock") }

// regentErrorPath holds why the last Regent could not listen for commands; a Regent that
// listens removes it.
func regentErrorPath(d *state.Dir) string { return filepath.Join(d.Root, "regent.error") }

// maxSocketPath is the longest path a Unix socket address holds (sun_path is 108 bytes, the
// last one a NUL).
const maxSocketPath = 107

// regentAddress is where the Regent of a state directory answers: its socket in the state
// directory, or, where that path is too long, the address the running Regent recorded ("" when
// none is recorded).
func regentAddress(d *state.Dir) string {
	if p := regentSocketPath(d); len(p) <= maxSocketPath {
		return p
	}
	var info regentInfo
	if err := state.ReadJSON(regentInfoPath(d), &info); err != nil {
		return ""
	}
	return info.Address
}

// regentInfo is regent.json: who the Regent is, for status lines that need no round trip.
type regentInfo struct {
	PID     int    `json:"pid"`
	Started string `json:"started"`
	Socket  string `json:"tmux_socket"`
	// Address is the Regent's command socket.
	Address string `json:"address"`
}

func regentAlive(d *state.Dir) bool { return state.IsLocked(regentLockPath(d)) }

// regentPID is the live Regent's pid, 0 when none runs.
func regentPID(d *state.Dir) int {
	if !regentAlive(d) {
		return 0
	}
	var info regentInfo
	if err := state.ReadJSON(regentInfoPath(d), &info); err != nil {
		return 0
	}
	return info.PID
}

// ensureRegent makes sure the state directory's Regent runs and has looked at every loop:
// it wakes a running one, or starts one in the regent session of e's tmux server. The start
// lock orders this against a Regent that is leaving: either the leaving Regent sees the loop
// that made the caller come, or the caller sees it gone and starts another.
func ensureRegent(e *env) error {
	start, err := state.AcquireLock(regentStartPath(e.dir))
	if err != nil {
		return err
	}
	defer start.Unlock()
	if regentAlive(e.dir) {
		_, _ = regentRequest(e.dir, "wake")
		return nil
	}
	if regentGivenUp(e.dir) != "" {
		return errRegentGivenUp
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	_ = os.Remove(regentErrorPath(e.dir))
	argv := regentArgv(e, exe, "__keep")
	p, err := startRevived(e, regentWindow, argv)
	if err != nil {
		return fmt.Errorf("cannot start the Regent: %v", err)
	}
	// Until it answers, or says why it cannot: a Regent that cannot listen would leave every
	// loop undriven while the spawn looked fine.
	waitFor(5*time.Second, func() bool {
		return regentAnswers(e.dir) || cannotListen(e.dir) != "" || !e.procs.Alive(p.PID, 0)
	})
	if why := cannotListen(e.dir); why != "" {
		return fmt.Errorf("the Regent cannot run: %s (see 'swarm regent logs')", why)
	}
	return nil
}

// regentAnswers reports whether a Regent accepts connections on its socket.
func regentAnswers(d *state.Dir) bool {
	addr := regentAddress(d)
	if addr == "" || !regentAlive(d) {
		return false
	}
	conn, err := net.DialTimeout("unix", addr, time.Second)
	if err != nil {
		return false
	}
	_ = conn.Close()
	return true
}

// cannotListen is why the last Regent could not listen for commands, "" when it could.
func cannotListen(d *state.Dir) string {
	data, err := os.ReadFile(regentErrorPath(d))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// startRevived runs argv in a window of the regent session that tmux revives whenever its
// program dies (a program that ends on purpose closes its window first, see removeOwnPane).
func startRevived(e *env, window string, argv []string) (tmux.Pane, error) {
	p, err := e.tm.NewWindow(tmux.Spec{Session: regentSession, Window: window, Cwd: "/", Argv: argv})
	if err != nil {
		return tmux.Pane{}, err
	}
	if err := e.tm.ReviveOnDeath(p.ID); err != nil {
		_ = e.tm.KillPane(p.ID)
		return tmux.Pane{}, err
	}
	return p, nil
}

// removeOwnPane closes the window this process runs in, so tmux does not revive a program
// that leaves on purpose.
func removeOwnPane(e *env) {
	if pane := tmux.CurrentPane(); pane != "" {
		_ = e.tm.KillPane(pane)
	}
}

// regentArgv runs a hidden regent command of this executable on this state directory and
// tmux server, wherever it starts.
func regentArgv(e *env, exe, command string) []string {
	return []string{exe, "--swarm-dir", e.dir.Root, "--tmux-socket", e.tm.Socket(), "regent", command}
}

// regentRequest sends one request line and returns the Regent's one-line answer.
func regentRequest(d *state.Dir, req string) (string, error) {
	addr := regentAddress(d)
	if addr == "" {
		return "", fmt.Errorf("the Regent is not answering: it recorded no address")
	}
	conn, err := net.DialTimeout("unix", addr, time.Second)
	if err != nil {
		return "", fmt.Errorf("the Regent is not answering: %v", err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintln(conn, req); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("the Regent did not answer: %v", err)
	}
	line = strings.TrimSpace(line)
	if msg, ok := strings.CutPrefix(line, "error: "); ok {
		return "", fmt.Errorf("%s", msg)
	}
	return line, nil
}

// regentStatusOf asks the Regent how it is doing.
func regentStatusOf(d *state.Dir) (*regentReport, error) {
	line, err := regentRequest(d, "status")
	if err != nil {
		return nil, err
	}
	var r regentReport
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		return nil, fmt.Errorf("the Regent's answer cannot be read: %v", err)
	}
	return &r, nil
}

// dropLoop has the Regent stop driving a loop (its kill could not be recorded): it ends the
// loop's agent and does not take the loop up again for as long as it runs.
func dropLoop(d *state.Dir, name string) error {
	_, err := regentRequest(d, "drop "+name)
	return err
}

// samePeer reports whether the process at the other end of conn runs as this user.
func samePeer(conn net.Conn) bool {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	var cred *syscall.Ucred
	_ = raw.Control(func(fd uintptr) {
		cred, err = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	})
	return err == nil && cred != nil && int(cred.Uid) == os.Getuid()
}

// regentSettled waits briefly for a Regent that has nothing left to do to leave, so a kill of
// the last loops returns with nothing of them running.
func regentSettled(e *env) {
	if !regentAlive(e.dir) || loopsNeedRegent(e) {
		return
	}
	_, _ = regentRequest(e.dir, "wake")
	waitFor(5*time.Second, func() bool { return !regentAlive(e.dir) || loopsNeedRegent(e) })
}

// loopsNeedRegent reports whether any supervised loop should be running.
func loopsNeedRegent(e *env) bool {
	for _, name := range loopNames(e) {
		if needsRegent(ralph.DirFor(e.dir, name)) {
			return true
		}
	}
	return false
}
