package driver

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/sandbox"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
)

// Starting an iteration: a fresh prompt and a fresh agent in the worker's pane.

// start begins the next iteration: fresh prompt, fresh agent in the same pane.
func (l *Loop) start(st *ralph.State) error {
	n := st.CurrentIteration + 1
	// A server that did not answer the last look is asked before anything of the iteration
	// (its hooks) runs: a start that cannot reach the pane is tried again once it answers.
	if !l.waitForServer(st, n) {
		return nil
	}
	_, err := l.starter(&loopPane{l: l, st: st, n: n}).Start(st, n)
	var se *StartError
	switch {
	case err == nil:
		return nil
	case l.outage.begin(err):
		return nil // the next step waits for the server, then starts the iteration
	case errors.As(err, &se) && se.Reason == ReasonWorkerGone:
		l.stopWith(ralph.StatusStopped, se.Reason, se.Err.Error())
		return se.Err
	case errors.As(err, &se) && se.Reason == ReasonIOError && noRoom(se.Err):
		// A full disk is no failure of the loop's: the iteration is started again after the
		// pause every write that failed gets (see recorder.retryWrites).
		l.rec.recorded(fmt.Errorf("cannot save prompt copy: %w", se.Err))
		return nil
	case errors.As(err, &se) && se.Reason == ReasonIOError:
		return l.fail(se.Reason, fmt.Errorf("cannot save prompt copy: %v", se.Err))
	case errors.As(err, &se):
		return l.fail(se.Reason, se.Err)
	case errors.Is(err, errServerGone):
		l.rec.say("tmux server is gone, stopping loop")
		l.stopWith(ralph.StatusStopped, "tmux_server_gone", "tmux server gone")
		return nil
	}
	return l.fail("start_failed", fmt.Errorf("cannot start iteration %d: %v", n, err))
}

// noRoom reports whether a write failed for want of room (a full disk, a quota).
func noRoom(err error) bool { return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) }

// starter starts this loop's iterations in the worker's pane, as the process that drives it.
func (l *Loop) starter(p Pane) Starter {
	return Starter{Dir: l.cfg.Dir, Workers: l.cfg.Workers, Name: l.cfg.Name, Extra: l.cfg.ExtraEnv,
		Wrapper: l.cfg.RunWrapper, Now: l.cfg.Clock.Now, Detail: l.cfg.Detail, Say: l.rec.say, Recorded: l.rec.recorded,
		Monitor: os.Getpid(), Announce: true, AgentNote: true, Pane: p, Context: l.ctx()}
}

// loopPane is the worker's pane, where the loop starts iteration n (st is the loop's state
// as the loop last read it).
type loopPane struct {
	l  *Loop
	st *ralph.State
	n  int
	w  *state.Worker
}

func (p *loopPane) Command() ([]string, error) {
	w, err := p.l.cfg.worker()
	if err != nil {
		return nil, err
	}
	if len(w.Cmd) == 0 {
		return nil, errCommandLost
	}
	p.w = w
	return w.Cmd, nil
}

// Start runs the hooks before it looks at the status: what they do may take a while, and a
// pause or kill that lands meanwhile is still seen before the agent starts.
func (p *loopPane) Start(launch ralph.Launch, hooks func(string), begin func(*ralph.State, string, time.Time)) (bool, error) {
	hooks(p.l.ending.workDir(p.st))
	return p.l.launchLocked(p.w, launch, p.n, begin)
}

// stopWith ends the loop for a reason found outside the policy (the worker or its tmux
// server is gone).
func (l *Loop) stopWith(status ralph.Status, reason, logLine string) {
	var d ralph.Decision
	d.Stop(status, reason, logLine)
	l.transition(&ralph.State{}, agent{dead: true}, d)
}

// launchLocked checks the status and starts the agent under the loop lock: a pause or kill
// that lands first is seen, and one that lands later finds the new agent to act on.
func (l *Loop) launchLocked(w *state.Worker, lc ralph.Launch, n int, begin func(*ralph.State, string, time.Time)) (started bool, err error) {
	err = l.cfg.Dir.WithLock(func() error {
		var cur ralph.State
		if err := state.ReadJSON(l.cfg.Dir.StatePath(), &cur); err != nil {
			return err
		}
		if cur.Status != ralph.StatusRunning {
			return nil
		}
		if err := l.launch(w, lc, n); err != nil {
			return err
		}
		begin(&cur, w.Cwd, l.cfg.Clock.Now())
		if err := state.WriteJSON(l.cfg.Dir.StatePath(), &cur); err != nil {
			return err
		}
		started = true
		return nil
	})
	return started, err
}

// launch starts iteration n's agent (lc) in the worker's pane and notes it in the worker's record.
func (l *Loop) launch(w *state.Worker, lc ralph.Launch, n int) error {
	_ = os.Remove(l.cfg.Workers.ExitPath(l.cfg.Name))
	if w.Sandbox.Sandboxed() {
		// Never unconfined for want of the wrapper's name: this very executable then.
		self, _ := os.Executable()
		if len(l.cfg.RunWrapper) > 0 {
			self = l.cfg.RunWrapper[0]
		}
		lc.Sandbox = sandbox.ForWorker(w, l.cfg.Workers.Root, lc.Box, l.cfg.Workers.EgressPath(w.Name)).Prefix(self)
	}
	argv, scripted, err := lc.Start()
	if err != nil {
		return err
	}
	spec := tmux.Spec{Session: w.Tmux.Session, Window: w.Tmux.Window, Cwd: w.Cwd, Argv: argv, ID: w.ID, ClearHistory: true}
	l.features.agentStarting()
	p, err := l.startAgent(w, spec, l.cfg.PaneShell && scripted, lc.Script)
	if err != nil {
		return err
	}
	return l.cfg.Workers.NoteWorkerStart(w.Name, func(cur *state.Worker) error {
		if cur.Tmux == nil {
			return nil
		}
		cur.Tmux.PaneID = p.ID
		cur.PID = p.PID // the agent's, also under a pane shell
		cur.Status = state.StatusRunning
		cur.ExitCode = nil
		if cur.Metadata == nil {
			cur.Metadata = map[string]any{}
		}
		cur.Metadata["ralph"] = true
		cur.Metadata["ralph_iteration"] = n
		return nil
	})
}

// startAgent starts the iteration's agent in the worker's pane: through the pane's shell when
// there is one, else as a new pane process (spec's, under a new pane shell when inShell is
// set), in a new window when the pane is gone. The pane returned carries the agent's process.
func (l *Loop) startAgent(w *state.Worker, spec tmux.Spec, inShell bool, script string) (tmux.Pane, error) {
	p, err := l.view.ownPane(w)
	if errors.Is(err, tmux.ErrNotAnswering) {
		// The pane may well be there: a new window beside it would be a second agent.
		return p, err
	}
	gone := err != nil
	if gone {
		// An agent whose window or server is gone may still run: never two at once.
		l.view.end(agent{dead: true}, l.cfg.KillGrace)
		// With no tmux server left (someone ran kill-server) the loop must not start one again.
		if panes, perr := l.cfg.Tmux.Panes(); perr == nil && len(panes) == 0 {
			return p, errServerGone
		}
	} else {
		// The previous agent, or anything it left behind.
		pid, _ := l.shell.agentPID(p)
		l.view.end(agent{pid: pid}, l.cfg.KillGrace)
	}
	// Whatever starts from here is the next agent: nothing of it was looked for or seen to
	// end yet, and what the next script notes is its process.
	l.view.swept, l.view.ended, l.view.since = false, 0, l.cfg.Procs.Mark()
	_ = os.Remove(l.cfg.Workers.AgentPIDPath(l.cfg.Name))
	if inShell && !gone && !p.Dead {
		if pid, ok := l.shell.startAgent(p, script); ok {
			p.PID = pid
			return p, nil
		}
	}
	inShell = l.shell.argvFor(&spec, inShell, script)
	if gone {
		// The window was closed by hand: open a new one and point the worker at it.
		p, err = l.cfg.Tmux.NewWindow(spec)
	} else {
		p, err = l.cfg.Tmux.Respawn(w.Tmux.PaneID, spec)
	}
	if err == nil && inShell {
		p.PID = l.shell.waitAgent(p.PID)
	}
	return p, err
}

// ReadPrompt reads the prompt file, with the seed's messages for a missing or unreadable file.
func ReadPrompt(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("prompt file not found: %s", path)
		}
		return "", fmt.Errorf("cannot read prompt file: %s", path)
	}
	return string(data), nil
}
