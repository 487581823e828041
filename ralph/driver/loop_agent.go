package driver

import (
	"errors"
	"fmt"
	"time"

	"github.com/swarm-dev/swarm/ralph"
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
func (l *Loop) lastSeen() agent { return l.seen }

func (l *Loop) agentNow() agent {
	w, err := l.worker()
	if err != nil {
		return agent{gone: true, dead: true}
	}
	p, err := l.ownPane(w)
	if l.outage.notAnswering(err) {
		return l.outage.silentAgent(l.seen, w.Tmux.PaneID)
	}
	if err != nil {
		return agent{paneID: w.Tmux.PaneID, gone: true, dead: true}
	}
	pid, hosted := l.host.agentPID(p)
	a := agent{paneID: p.ID, pid: pid, dead: p.Dead}
	// The wrapper writes the exit file as the agent ends, often before tmux notices.
	if c, ok := l.cfg.Workers.ExitCode(l.cfg.Name); ok {
		a.code = &c
		a.dead = true
	} else if hosted {
		// The pane lives on with its host: the agent's end is its process's.
		a.dead = !l.cfg.Procs.Alive(pid)
	} else if p.Dead {
		if p.HasStatus {
			c := p.ExitStatus
			a.code = &c
		}
	}
	l.seen = a
	return a
}

// endedNow is agent a once ended: the wrapper's exit file, written as the agent ended, tells
// its code without a question to tmux (which, busy, can take a while to answer); without one,
// as tmux reports it once settled.
func (l *Loop) endedNow(a agent) agent {
	if c, ok := l.cfg.Workers.ExitCode(l.cfg.Name); ok {
		a.dead, a.code = true, &c
		return a
	}
	return l.settled()
}

// settled waits (briefly) for tmux to report the ended agent's pane as dead with its exit
// status: the process can be gone a moment before tmux has collected it.
func (l *Loop) settled() agent {
	deadline := l.cfg.Clock.Now().Add(2 * time.Second)
	for {
		a := l.agentNow()
		if a.dead && a.code == nil && !a.gone && a.pid > 0 && a.pid == l.host.started.agent {
			a = l.hostRecorded(a)
		}
		if a.gone || (a.dead && a.code != nil) || l.cfg.Clock.Now().After(deadline) {
			return a
		}
		l.cfg.Clock.Sleep(20 * time.Millisecond)
	}
}

// hostRecorded waits briefly for the pane's host to record how its agent a ended: it does so
// as it collects the agent, a moment after the agent's end can be seen (agentNow has just
// looked for the record).
func (l *Loop) hostRecorded(a agent) agent {
	for pause := time.Millisecond; pause <= 32*time.Millisecond; pause *= 2 {
		l.cfg.Clock.Sleep(pause)
		if c, ok := l.cfg.Workers.ExitCode(l.cfg.Name); ok {
			a.code = &c
			return a
		}
	}
	return a
}

func (l *Loop) capture(a agent, history int) ([]string, error) {
	out, err := l.cfg.Tmux.Capture(a.paneID, history)
	if err != nil {
		return nil, err
	}
	return screen.Lines(out), nil
}

func (l *Loop) statusNow() ralph.Status {
	st, err := l.cfg.Dir.Load()
	if err != nil {
		return ralph.StatusStopped
	}
	return st.Status
}

func (l *Loop) abortRequested() bool {
	return l.ctx().Err() != nil
}

// abortNow ends the agent at once and leaves the loop paused.
func (l *Loop) abortNow(a agent) {
	l.aborted = true
	l.endAgent(a, 0)
	l.rec.say("stopping now, agent ended")
	l.rec.update(func(s *ralph.State) error {
		if s.Status == ralph.StatusRunning {
			s.Status = ralph.StatusPaused
			s.PausedAt = l.rec.now()
		}
		s.ExitReason = "signal"
		s.Phase = ralph.PhaseEnded
		return nil
	})
	l.rec.logEvent("PAUSE", fmt.Sprintf("iteration %d ended by signal", l.iteration()))
}

func (l *Loop) iteration() int {
	st, err := l.cfg.Dir.Load()
	if err != nil {
		return 0
	}
	return st.CurrentIteration
}

// errNotOurs means the worker's pane ID now names another worker's pane (the tmux server
// restarted and numbered panes from %0 again).
var errNotOurs = errors.New("the pane belongs to another worker")

// ownPane is the worker's pane, when it is still the worker's own. It is one look: tmux can
// take a fifth of a second to collect the exit status of a program that just ended, and the
// loop waits for that itself where it needs it (settled), reading the wrapper's exit file first.
func (l *Loop) ownPane(w *state.Worker) (tmux.Pane, error) {
	p, err := l.cfg.Tmux.PaneNow(w.Tmux.PaneID)
	if err == nil && !w.Owns(p.SwarmID) {
		return tmux.Pane{}, errNotOurs
	}
	return p, err
}

// endAgent ends the iteration's agent: its process group, and whatever carries the worker's
// identity outside it (a setsid grandchild, an agent whose window or tmux server was killed).
// Nothing of one iteration may outlive it into the next. What carries the identity started
// after the agent did (the last look ended all that started before): only the processes
// started since are looked at.
func (l *Loop) endAgent(a agent, grace time.Duration) {
	if !a.dead && a.pid > 0 && a.pid != l.ended {
		l.cfg.Procs.KillGroup(a.pid, grace)
		l.ended = a.pid
	}
	if l.swept {
		return // nothing carrying the identity was started since the last look for it
	}
	if w, err := l.worker(); err == nil && w.ID != "" {
		if n := l.cfg.Procs.KillTagged(w.IDTag(), l.since, grace); n > 0 {
			l.rec.say("ended %d process(es) of the agent left outside its window", n)
		}
		l.swept = true
	}
}

// agentGetenv looks up the agent's environment: the worker's saved one, then the monitor's.
func (l *Loop) agentGetenv(name string) func(string) string {
	return ralph.EnvFileGetenv(l.cfg.Workers.EnvPath(name))
}
