package driver

import (
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
)

// Starting agents through the pane's host (see host.go), and finding the agent it started.

// paneHost is what the driver knows of the pane's host.
type paneHost struct {
	host  hostView     // the agent the pane's host last started
	modes hostTerminal // the terminal modes the pane's host began with
}

// hostView is the agent the loop last found under a host.
type hostView struct {
	host, agent int // the pane's process, and the agent it started
}

// hostTerminal is the terminal modes a host noted as it began, as the loop read them.
type hostTerminal struct {
	host  int
	modes unix.Termios
}

// hostAnswer bounds the wait for a host's agent to note its process: a host that does not
// answer in time is replaced by a new pane process.
const hostAnswer = 10 * time.Second

// agentPID is the process (and process group) of the agent in pane p: the pane's own
// process, or the agent its host started.
func (l *Loop) agentPID(p tmux.Pane) (pid int, hosted bool) {
	if p.Dead {
		return p.PID, false
	}
	if l.host.host == p.PID && l.host.agent > 0 {
		return l.host.agent, true
	}
	if pid, ok := l.cfg.Workers.HostedAgent(l.cfg.Name, p.PID); ok {
		l.host = hostView{host: p.PID, agent: pid}
		return pid, true
	}
	return p.PID, false
}

// hostPipe is the named pipe the loop's host reads.
func (l *Loop) hostPipe() string { return l.cfg.Workers.HostPath(l.cfg.Name) }

// hostFor makes spec's program a new host that starts with script, on a new pipe, when hosted
// (and the pipe can be made); it reports whether it did.
func (l *Loop) hostFor(spec *tmux.Spec, hosted bool, script string) bool {
	if !hosted || newHostPipe(l.hostPipe()) != nil {
		return false
	}
	// The new host notes its own terminal's modes: none of an old host's may stand for them.
	modes := l.cfg.Workers.HostModesPath(l.cfg.Name)
	_ = os.Remove(modes)
	spec.Argv = HostArgv(HostFiles{Pipe: l.hostPipe(), Modes: modes, Exit: l.cfg.Workers.ExitPath(l.cfg.Name)}, script)
	return true
}

// startHosted has the host in pane p start the agent's script, and returns the agent's
// process; ok is false when no host took it (the pane runs none, or it has just ended).
func (l *Loop) startHosted(p tmux.Pane, script string) (pid int, ok bool) {
	line := script
	if !resetTerminal(p.PID, l.hostModes(p.PID)) {
		line = hostModes + "\n" + script
	}
	if !tellHost(l.hostPipe(), line) {
		return 0, false
	}
	pid = l.waitAgent(p.PID)
	return pid, pid != p.PID
}

// hostModes is the terminal modes the host whose process is hostPID noted as it began; nil
// when it noted none (yet). What was read stands for as long as that host does.
func (l *Loop) hostModes(hostPID int) *unix.Termios {
	if l.modes.host == hostPID {
		return &l.modes.modes
	}
	m, ok := readModes(l.cfg.Workers.HostModesPath(l.cfg.Name))
	if !ok {
		return nil
	}
	l.modes = hostTerminal{host: hostPID, modes: m}
	return &l.modes.modes
}

// waitAgent waits for the start script that pane process panePID began (as a host, or as the
// pane's process itself when a host could not start agents) to note its process, and returns
// it: the pane's process when none did in time or the pane's process ended first.
func (l *Loop) waitAgent(panePID int) int {
	deadline := l.cfg.Clock.Now().Add(hostAnswer)
	for {
		if pid, parent, ok := l.cfg.Workers.AgentNote(l.cfg.Name); ok && (parent == panePID || pid == panePID) {
			if pid != panePID {
				l.host = hostView{host: panePID, agent: pid}
			}
			return pid
		}
		if !l.cfg.Procs.Alive(panePID) || l.cfg.Clock.Now().After(deadline) {
			return panePID
		}
		l.cfg.Clock.Sleep(2 * time.Millisecond)
	}
}

// DismissHost tells the host in the named loop's pane, if one is there, to end once its agent
// has, and reports whether one took it. A monitor does so as its loop stops; one killed in
// between leaves the host waiting, with nothing to drive it, until the next Regent looks.
func DismissHost(workers *state.Dir, name string) bool {
	return tellHost(workers.HostPath(name), hostExit)
}

// dismissHost tells the pane's host to end once its agent has, when the loop is no longer
// running: with no loop to drive it, the pane ends with its agent, as it would without a host.
// A running loop left to the next monitor (a Regent handing over) keeps its host.
func (l *Loop) dismissHost() {
	if l.cfg.Host && l.statusNow() != ralph.StatusRunning {
		tellHost(l.hostPipe(), hostExit)
	}
}
