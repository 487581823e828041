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

// paneHost is the pane's host as the driver knows it: it makes hosts, has them start agents
// and dismisses them, and keeps what it learnt of them (the agent a host started, the modes
// it began with), which only it reads.
type paneHost struct {
	cfg     *Config
	started hostView     // the agent the pane's host last started
	modes   hostTerminal // the terminal modes the pane's host began with
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
func (ph *paneHost) agentPID(p tmux.Pane) (pid int, hosted bool) {
	if p.Dead {
		return p.PID, false
	}
	if ph.started.host == p.PID && ph.started.agent > 0 {
		return ph.started.agent, true
	}
	if pid, ok := ph.cfg.Workers.HostedAgent(ph.cfg.Name, p.PID); ok {
		ph.started = hostView{host: p.PID, agent: pid}
		return pid, true
	}
	return p.PID, false
}

// hostPipe is the named pipe the loop's host reads.
func (ph *paneHost) hostPipe() string { return ph.cfg.Workers.HostPath(ph.cfg.Name) }

// hostFor makes spec's program a new host that starts with script, on a new pipe, when hosted
// (and the pipe can be made); it reports whether it did.
func (ph *paneHost) hostFor(spec *tmux.Spec, hosted bool, script string) bool {
	if !hosted || newHostPipe(ph.hostPipe()) != nil {
		return false
	}
	// The new host notes its own terminal's modes: none of an old host's may stand for them.
	modes := ph.cfg.Workers.HostModesPath(ph.cfg.Name)
	_ = os.Remove(modes)
	spec.Argv = HostArgv(HostFiles{Pipe: ph.hostPipe(), Modes: modes, Exit: ph.cfg.Workers.ExitPath(ph.cfg.Name)}, script)
	return true
}

// startHosted has the host in pane p start the agent's script, and returns the agent's
// process; ok is false when no host took it (the pane runs none, or it has just ended).
func (ph *paneHost) startHosted(p tmux.Pane, script string) (pid int, ok bool) {
	line := script
	if !resetTerminal(p.PID, ph.hostModes(p.PID)) {
		line = hostModes + "\n" + script
	}
	if !tellHost(ph.hostPipe(), line) {
		return 0, false
	}
	pid = ph.waitAgent(p.PID)
	return pid, pid != p.PID
}

// hostModes is the terminal modes the host whose process is hostPID noted as it began; nil
// when it noted none (yet). What was read stands for as long as that host does.
func (ph *paneHost) hostModes(hostPID int) *unix.Termios {
	if ph.modes.host == hostPID {
		return &ph.modes.modes
	}
	m, ok := readModes(ph.cfg.Workers.HostModesPath(ph.cfg.Name))
	if !ok {
		return nil
	}
	ph.modes = hostTerminal{host: hostPID, modes: m}
	return &ph.modes.modes
}

// waitAgent waits for the start script that pane process panePID began (as a host, or as the
// pane's process itself when a host could not start agents) to note its process, and returns
// it: the pane's process when none did in time or the pane's process ended first.
func (ph *paneHost) waitAgent(panePID int) int {
	deadline := ph.cfg.Clock.Now().Add(hostAnswer)
	for {
		if pid, parent, ok := ph.cfg.Workers.AgentNote(ph.cfg.Name); ok && (parent == panePID || pid == panePID) {
			if pid != panePID {
				ph.started = hostView{host: panePID, agent: pid}
			}
			return pid
		}
		if !ph.cfg.Procs.Alive(panePID) || ph.cfg.Clock.Now().After(deadline) {
			return panePID
		}
		ph.cfg.Clock.Sleep(2 * time.Millisecond)
	}
}

// DismissHost tells the host in the named loop's pane, if one is there, to end once its agent
// has, and reports whether one took it. A monitor does so as its loop stops; one killed in
// between leaves the host waiting, with nothing to drive it, until the next Regent looks.
func DismissHost(workers *state.Dir, name string) bool {
	return tellHost(workers.HostPath(name), hostExit)
}

// dismiss tells the pane's host to end once its agent has, when the loop is no longer running
// (status says how it is, asked only where agents start through a host): with no loop to
// drive it, the pane ends with its agent, as it would without a host. A running loop left to
// the next monitor (a Regent handing over) keeps its host.
func (ph *paneHost) dismiss(status func() ralph.Status) {
	if ph.cfg.Host && status() != ralph.StatusRunning {
		tellHost(ph.hostPipe(), hostExit)
	}
}
