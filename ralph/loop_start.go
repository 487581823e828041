package ralph

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/google/uuid"

	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
)

// Starting an iteration: a fresh prompt and a fresh agent in the worker's pane.

// worker returns the loop's worker record, as shared by every loop this process drives (it
// must not be changed).
func (l *Loop) worker() (*state.Worker, error) {
	w, err := l.cfg.Workers.SharedWorker(l.cfg.Name)
	if err != nil {
		return nil, err
	}
	if w == nil || w.Tmux == nil {
		return nil, fmt.Errorf("worker '%s' is gone", l.cfg.Name)
	}
	return w, nil
}

// start begins the next iteration: fresh prompt, fresh agent in the same pane.
func (l *Loop) start(st *State) error {
	n := st.CurrentIteration + 1
	prompt, err := ReadPrompt(st.PromptFile)
	if err != nil {
		return l.fail("prompt_unreadable", err)
	}
	w, err := l.worker()
	if err != nil {
		l.stopWith(StatusStopped, "worker_gone", err.Error())
		return err
	}
	if err := os.WriteFile(l.cfg.Dir.PromptCopy(), []byte(prompt), 0o600); err != nil {
		return l.fail("io_error", fmt.Errorf("cannot save prompt copy: %v", err))
	}
	l.runHooks(st, HookPreIteration, n, st.LastExitCode)
	started, err := l.launchLocked(w, st, n)
	if errors.Is(err, errServerGone) {
		l.say("tmux server is gone, stopping loop")
		l.stopWith(StatusStopped, "tmux_server_gone", "tmux server gone")
		return nil
	}
	if err != nil {
		return l.fail("start_failed", fmt.Errorf("cannot start iteration %d: %v", n, err))
	}
	if !started {
		return nil
	}
	l.agentIteration(n)
	l.updateSupervision(func(rs *SupervisionState) { rs.Iteration = n; rs.PID = os.Getpid() })
	l.say("starting iteration %d/%d", n, st.MaxIterations)
	l.logEvent("START", fmt.Sprintf("iteration %d/%d", n, st.MaxIterations))
	return nil
}

// stopWith ends the loop for a reason found outside the policy (the worker or its tmux
// server is gone).
func (l *Loop) stopWith(status Status, reason, logLine string) {
	var d Decision
	d.stop(status, reason, logLine)
	l.transition(&State{}, agent{dead: true}, d)
}

// launchLocked checks the status and starts the agent under the loop lock: a pause or kill
// that lands first is seen, and one that lands later finds the new agent to act on.
func (l *Loop) launchLocked(w *state.Worker, st *State, n int) (started bool, err error) {
	err = l.cfg.Dir.WithLock(func() error {
		var cur State
		if err := state.ReadJSON(l.cfg.Dir.statePath(), &cur); err != nil {
			return err
		}
		if cur.Status != StatusRunning {
			return nil
		}
		session := uuid.NewString()
		if err := l.launch(w, st, n, session); err != nil {
			return err
		}
		// Where the iteration starts from: for the test gate and the commits it records.
		cur.BeginIteration(n, l.cfg.Clock.Now(), git.Head(w.Cwd))
		cur.AgentSession = session
		if err := state.WriteJSON(l.cfg.Dir.statePath(), &cur); err != nil {
			return err
		}
		started = true
		return nil
	})
	return started, err
}

// BeginIteration records that iteration n started at now, from commit head (empty outside a
// git repository). Spawn uses it for the first iteration, the loop for the others.
func (st *State) BeginIteration(n int, now time.Time, head string) {
	st.CurrentIteration = n
	st.LastIterationStarted = now.Format(TimeFormat)
	st.IterationStartCommit = head
	st.Phase = PhaseStarting
	st.BlockedBy, st.NeedsPermission = "", ""
	st.LastExitCode = nil
	st.LastScreenChange = st.LastIterationStarted
	st.ContextUsed, st.ContextNudgeSent = 0, false
}

// AgentEnv is what an iteration's agent gets on top of the worker's own environment.
func (d Dir) AgentEnv(worker string, n int) []string {
	return []string{fmt.Sprintf("SWARM_ITERATION=%d", n), "SWARM_WORKER=" + worker, "SWARM_DONE_FILE=" + d.DoneFile()}
}

// AgentArgv is the command run in the pane for an iteration: the agent under swarm's wrapper,
// which writes its exit code to exitFile (tmux does not always collect the status of a pane
// that ends quickly after a respawn) and, in stdin mode, gives it the prompt on stdin.
func AgentArgv(cmd []string, mode string, wrapper []string, exitFile, promptCopy string) []string {
	if len(wrapper) == 0 {
		return cmd
	}
	argv := append([]string{}, wrapper...)
	argv = append(argv, "--exit-file", exitFile)
	if mode == PromptStdin {
		argv = append(argv, "--stdin", promptCopy)
	}
	argv = append(argv, "--")
	return append(argv, cmd...)
}

// agentLaunch is how iteration n's agent starts (see Launch).
func (l *Loop) agentLaunch(w *state.Worker, st *State, n int, session string) Launch {
	return IterationLaunch(l.cfg.Dir, l.cfg.Workers, w.Name, AgentCommand(w.Cmd, session), st, n, l.cfg.ExtraEnv, l.cfg.RunWrapper)
}

// IterationLaunch is how iteration n of a loop starts the agent argv in worker name: with the
// worker's environment and the iteration's, the prompt on stdin in stdin mode, under the
// exit-recording script (or wrapper).
func IterationLaunch(d Dir, workers *state.Dir, name string, argv []string, st *State, n int, extra, wrapper []string) Launch {
	stdin := ""
	if st.PromptMode == PromptStdin {
		stdin = d.PromptCopy()
	}
	var userNotify []string
	if IsCodex(argv) && !st.NoAgentSignals {
		userNotify = CodexUserNotify(workers.EnvPath(name))
	}
	sig := agentSignals(argv, d, Recorder(wrapper), st.NoAgentSignals, userNotify)
	return Launch{Argv: sig.Argv, EnvFile: workers.EnvPath(name), Extra: append(append([]string{}, extra...), d.AgentEnv(name, n)...),
		ExitFile: workers.ExitPath(name), Stdin: stdin, Script: workers.ScriptPath(name), PIDFile: workers.AgentPIDPath(name),
		Wrapper: wrapper, Events: sig.Events, Settings: sig.Settings, SettingsJSON: sig.SettingsJSON}
}

// WrapperArgv is swarm's wrapper given the worker's environment: from its private file, plus
// extra values that are no secret (the iteration's) as flags. Nothing goes to tmux's -e, which
// would keep it for the whole session and show it to every local user in ps.
func WrapperArgv(wrapper []string, envFile string, extra []string) []string {
	argv := append(append([]string{}, wrapper...), "--env-file", envFile)
	for _, kv := range extra {
		argv = append(argv, "--env", kv)
	}
	return argv
}

func (l *Loop) launch(w *state.Worker, st *State, n int, session string) error {
	_ = os.Remove(l.cfg.Workers.ExitPath(l.cfg.Name))
	lc := l.agentLaunch(w, st, n, session)
	argv, scripted, err := lc.Start()
	if err != nil {
		return err
	}
	spec := tmux.Spec{Session: w.Tmux.Session, Window: w.Tmux.Window, Cwd: w.Cwd, Argv: argv, ID: w.ID, ClearHistory: true}
	l.events = eventReader{} // the new agent's events file starts empty
	p, err := l.startAgent(w, spec, l.cfg.Host && scripted, lc.Script)
	if err != nil {
		return err
	}
	return l.cfg.Workers.NoteWorkerStart(w.Name, func(cur *state.Worker) error {
		if cur.Tmux == nil {
			return nil
		}
		cur.Tmux.PaneID = p.ID
		cur.PID = p.PID // the agent's, also under a host
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

// startAgent starts the iteration's agent in the worker's pane: through the pane's host when
// there is one, else as a new pane process (spec's, under a new host when hosted), in a new
// window when the pane is gone. The pane returned carries the agent's process.
func (l *Loop) startAgent(w *state.Worker, spec tmux.Spec, hosted bool, script string) (tmux.Pane, error) {
	p, err := l.ownPane(w)
	gone := err != nil
	if gone {
		// An agent whose window or server is gone may still run: never two at once.
		l.endAgent(agent{dead: true}, l.cfg.KillGrace)
		// With no tmux server left (someone ran kill-server) the loop must not start one again.
		if panes, perr := l.cfg.Tmux.Panes(); perr == nil && len(panes) == 0 {
			return p, errServerGone
		}
	} else {
		// The previous agent, or anything it left behind.
		pid, _ := l.agentPID(p)
		l.endAgent(agent{pid: pid}, l.cfg.KillGrace)
	}
	// Whatever starts from here is the next agent: nothing of it was looked for or seen to
	// end yet, and what the next script notes is its process.
	l.swept, l.ended, l.since = false, 0, l.cfg.Procs.Mark()
	_ = os.Remove(l.cfg.Workers.AgentPIDPath(l.cfg.Name))
	if hosted && !gone && !p.Dead {
		if pid, ok := l.startHosted(p, script); ok {
			p.PID = pid
			return p, nil
		}
	}
	hosted = l.hostFor(&spec, hosted, script)
	if gone {
		// The window was closed by hand: open a new one and point the worker at it.
		p, err = l.cfg.Tmux.NewWindow(spec)
	} else {
		p, err = l.cfg.Tmux.Respawn(w.Tmux.PaneID, spec)
	}
	if err == nil && hosted {
		p.PID = l.waitAgent(p.PID)
	}
	return p, err
}
