package driver

import (
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
)

// Starting agents through the pane's shell (see pane_shell.go), and finding the agent it
// started.

// paneShell is the pane's shell as the driver knows it: it makes pane shells, has them start
// agents and dismisses them, and keeps what it learnt of them (the agent a pane shell started,
// the modes it began with), which only it reads.
type paneShell struct {
	cfg     *Config
	started shellView     // the agent the pane's shell last started
	modes   shellTerminal // the terminal modes the pane's shell began with
}

// shellView is the agent the loop last found under a pane shell.
type shellView struct {
	shell, agent int // the pane's process, and the agent it started
}

// shellTerminal is the terminal modes a pane shell noted as it began, as the loop read them.
type shellTerminal struct {
	shell int
	modes unix.Termios
}

// shellAnswer bounds the wait for a pane shell's agent to note its process: a pane shell that
// does not answer in time is replaced by a new pane process.
const shellAnswer = 10 * time.Second

// agentPID is the process (and process group) of the agent in pane p: the pane's own
// process, or the agent its pane shell started.
func (ps *paneShell) agentPID(p tmux.Pane) (pid int, inShell bool) {
	if p.Dead {
		return p.PID, false
	}
	if ps.started.shell == p.PID && ps.started.agent > 0 {
		return ps.started.agent, true
	}
	if pid, ok := ps.cfg.Workers.PaneShellAgent(ps.cfg.Name, p.PID); ok {
		ps.started = shellView{shell: p.PID, agent: pid}
		return pid, true
	}
	return p.PID, false
}

// pipe is the named pipe the loop's pane shell reads.
func (ps *paneShell) pipe() string { return ps.cfg.Workers.PaneShellPath(ps.cfg.Name) }

// argvFor makes spec's program a new pane shell that starts with script, on a new pipe, when
// inShell (and the pipe can be made); it reports whether it did.
func (ps *paneShell) argvFor(spec *tmux.Spec, inShell bool, script string) bool {
	if !inShell || newPaneShellPipe(ps.pipe()) != nil {
		return false
	}
	// The new pane shell notes its own terminal's modes: none of an old pane shell's may stand
	// for them.
	modes := ps.cfg.Workers.PaneShellModesPath(ps.cfg.Name)
	_ = os.Remove(modes)
	spec.Argv = PaneShellArgv(PaneShellFiles{Pipe: ps.pipe(), Modes: modes, Exit: ps.cfg.Workers.ExitPath(ps.cfg.Name)}, script)
	return true
}

// startAgent has the pane shell in pane p start the agent's script, and returns the agent's
// process; ok is false when no pane shell took it (the pane runs none, or it has just ended).
func (ps *paneShell) startAgent(p tmux.Pane, script string) (pid int, ok bool) {
	line := script
	if !resetTerminal(p.PID, ps.notedModes(p.PID)) {
		line = paneShellModes + "\n" + script
	}
	if !tellPaneShell(ps.pipe(), line) {
		return 0, false
	}
	pid = ps.waitAgent(p.PID)
	return pid, pid != p.PID
}

// notedModes is the terminal modes the pane shell whose process is shellPID noted as it began;
// nil when it noted none (yet). What was read stands for as long as that pane shell does.
func (ps *paneShell) notedModes(shellPID int) *unix.Termios {
	if ps.modes.shell == shellPID {
		return &ps.modes.modes
	}
	m, ok := readModes(ps.cfg.Workers.PaneShellModesPath(ps.cfg.Name))
	if !ok {
		return nil
	}
	ps.modes = shellTerminal{shell: shellPID, modes: m}
	return &ps.modes.modes
}

// waitAgent waits for the start script that pane process panePID began (as a pane shell, or as
// the pane's process itself when a pane shell could not start agents) to note its process, and
// returns it: the pane's process when none did in time or the pane's process ended first.
func (ps *paneShell) waitAgent(panePID int) int {
	deadline := ps.cfg.Clock.Now().Add(shellAnswer)
	for {
		if pid, parent, ok := ps.cfg.Workers.AgentNote(ps.cfg.Name); ok && (parent == panePID || pid == panePID) {
			if pid != panePID {
				ps.started = shellView{shell: panePID, agent: pid}
			}
			return pid
		}
		if !ps.cfg.Procs.Alive(panePID) || ps.cfg.Clock.Now().After(deadline) {
			return panePID
		}
		ps.cfg.Clock.Sleep(2 * time.Millisecond)
	}
}

// DismissPaneShell tells the pane shell in the named loop's pane, if one is there, to end once
// its agent has, and reports whether one took it. A monitor does so as its loop stops; one
// killed in between leaves the pane shell waiting, with nothing to drive it, until the next
// Regent looks.
func DismissPaneShell(workers *state.Dir, name string) bool {
	return tellPaneShell(workers.PaneShellPath(name), paneShellExit)
}

// dismiss tells the pane's shell to end once its agent has, when the loop is no longer running
// (status says how it is, asked only where agents start through a pane shell): with no loop to
// drive it, the pane ends with its agent, as it would without a host. A running loop left to
// the next monitor (a Regent handing over) keeps its host.
func (ps *paneShell) dismiss(status func() ralph.Status) {
	if ps.cfg.PaneShell && status() != ralph.StatusRunning {
		tellPaneShell(ps.pipe(), paneShellExit)
	}
}
