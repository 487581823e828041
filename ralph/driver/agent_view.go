package driver

import (
	"errors"
	"time"

	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
)

// The current iteration's agent as the driver sees it: its pane, its process, its exit.

// agent is the current iteration's pane as seen now.
type agent struct {
	paneID string
	pid    int
	dead   bool
	gone   bool
	code   *int
}

// agentView looks at the iteration's agent through tmux and ends it. It keeps the agent as
// last seen (a look the tmux server did not answer stands on it) and what was done to end the
// last one, so that the phases share one view of the agent, not each a view of its own.
type agentView struct {
	cfg    *Config
	rec    *recorder
	shell  *paneShell // where the agent was started through the pane's shell
	outage *outage    // the tmux server's silences, which a look can meet
	seen   agent      // the agent as last seen through tmux
	agentEnd
}

// agentEnd is what the driver did to end the worker's last agent, so that an iteration's end
// and the next start need one wait and one look, not two.
type agentEnd struct {
	// swept: the worker's processes outside its window were looked for and ended since its
	// last agent started.
	swept bool
	// ended: the process group whose end was last seen through; 0 once another agent started.
	ended int
	// since: the mark of the processes started before the agent (0: none taken, every process
	// counts), for the look for what it left outside its group.
	since int
}

// lastSeen is the agent as the last look through tmux saw it.
func (v *agentView) lastSeen() agent { return v.seen }

// now looks at the agent.
func (v *agentView) now() agent {
	w, err := v.cfg.worker()
	if err != nil {
		return agent{gone: true, dead: true}
	}
	p, err := v.ownPane(w)
	if v.outage.notAnswering(err) {
		return v.outage.silentAgent(v.seen, w.Tmux.PaneID)
	}
	if err != nil {
		return agent{paneID: w.Tmux.PaneID, gone: true, dead: true}
	}
	pid, inShell := v.shell.agentPID(p)
	a := agent{paneID: p.ID, pid: pid, dead: p.Dead}
	// The wrapper writes the exit file as the agent ends, often before tmux notices.
	if c, ok := v.cfg.Workers.ExitCode(v.cfg.Name); ok {
		a.code = &c
		a.dead = true
	} else if inShell {
		// The pane lives on with its pane shell: the agent's end is its process's.
		a.dead = !v.cfg.Procs.Alive(pid)
	} else if p.Dead {
		if p.HasStatus {
			c := p.ExitStatus
			a.code = &c
		}
	}
	v.seen = a
	return a
}

// endedNow is agent a once ended: the wrapper's exit file, written as the agent ended, tells
// its code without a question to tmux (which, busy, can take a while to answer); without one,
// as tmux reports it once settled.
func (v *agentView) endedNow(a agent) agent {
	if c, ok := v.cfg.Workers.ExitCode(v.cfg.Name); ok {
		a.dead, a.code = true, &c
		return a
	}
	return v.settled()
}

// settled waits (briefly) for tmux to report the ended agent's pane as dead with its exit
// status: the process can be gone a moment before tmux has collected it.
func (v *agentView) settled() agent {
	deadline := v.cfg.Clock.Now().Add(2 * time.Second)
	for {
		a := v.now()
		if v.outage.lasting() && a.code == nil {
			return v.silentExit(a)
		}
		if a.dead && a.code == nil && !a.gone && a.pid > 0 && a.pid == v.shell.started.agent {
			a = v.shellRecorded(a)
		}
		if a.gone || (a.dead && a.code != nil) || v.cfg.Clock.Now().After(deadline) {
			return a
		}
		v.cfg.Clock.Sleep(20 * time.Millisecond)
	}
}

// silentExitWait bounds the wait for an ended agent's exit code while the tmux server does
// not answer: the start script records it once its question to the terminal (whether input
// is left unread, see ralph.Launch) has gone unanswered for 2 s.
const silentExitWait = 10 * time.Second

// silentExit is agent a while the tmux server does not answer: its exit code, once the
// wrapper, the start script or the pane's shell records it, is the only word of its end.
func (v *agentView) silentExit(a agent) agent {
	deadline := v.cfg.Clock.Now().Add(silentExitWait)
	for {
		if c, ok := v.cfg.Workers.ExitCode(v.cfg.Name); ok {
			a.dead, a.code = true, &c
			return a
		}
		if !v.cfg.Clock.Now().Before(deadline) {
			return a
		}
		v.cfg.Clock.Sleep(50 * time.Millisecond)
	}
}

// shellRecorded waits briefly for the pane's shell to record how its agent a ended: it does so
// as it collects the agent, a moment after the agent's end can be seen (now has just
// looked for the record).
func (v *agentView) shellRecorded(a agent) agent {
	for pause := time.Millisecond; pause <= 32*time.Millisecond; pause *= 2 {
		v.cfg.Clock.Sleep(pause)
		if c, ok := v.cfg.Workers.ExitCode(v.cfg.Name); ok {
			a.code = &c
			return a
		}
	}
	return a
}

func (v *agentView) capture(a agent, history int) ([]string, error) {
	out, err := v.cfg.Tmux.Capture(a.paneID, history)
	if err != nil {
		return nil, err
	}
	return screen.Lines(out), nil
}

// errNotOurs means the worker's pane ID now names another worker's pane (the tmux server
// restarted and numbered panes from %0 again).
var errNotOurs = errors.New("the pane belongs to another worker")

// ownPane is the worker's pane, when it is still the worker's own. It is one look: tmux can
// take a fifth of a second to collect the exit status of a program that just ended, and the
// loop waits for that itself where it needs it (settled), reading the wrapper's exit file first.
func (v *agentView) ownPane(w *state.Worker) (tmux.Pane, error) {
	p, err := v.cfg.Tmux.PaneNow(w.Tmux.PaneID)
	if err == nil && !w.Owns(p.SwarmID) {
		return tmux.Pane{}, errNotOurs
	}
	return p, err
}

// end ends the iteration's agent: its process group, and whatever carries the worker's
// identity outside it (a setsid grandchild, an agent whose window or tmux server was killed).
// Nothing of one iteration may outlive it into the next. What carries the identity started
// after the agent did (the last look ended all that started before): only the processes
// started since are looked at.
func (v *agentView) end(a agent, grace time.Duration) {
	if !a.dead && a.pid > 0 && a.pid != v.ended {
		v.cfg.Procs.KillGroup(a.pid, grace)
		v.ended = a.pid
	}
	if v.swept {
		return // nothing carrying the identity was started since the last look for it
	}
	if w, err := v.cfg.worker(); err == nil && w.ID != "" {
		if n := v.cfg.Procs.KillTagged(w.IDTag(), v.since, grace); n > 0 {
			v.rec.say("ended %d process(es) of the agent left outside its window", n)
		}
		v.swept = true
	}
}
