package loop

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/driver"
	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// A loop's first iteration starts where its worker is created, not in the driver: the worker's
// window is up and its agent started when the spawn returns, and the driver takes the loop up
// from iteration 2 on. Both go through the same driver.Starter, so the steps and their order
// are those of every later iteration.

// Begin creates the loop's worker with iteration 1's agent and records the loop as running
// it; here the pane is made by creating the worker (see spawnPane). On failure nothing is
// left: no window, no record, no loop directory. o is the worker as a plain spawn would start
// it; st is the new loop's settings, which Begin completes.
func (l Loops) Begin(o worker.SpawnOptions, st *ralph.State) (*state.Worker, error) {
	m := l.m
	ld := ralph.DirFor(m.Dir(), o.Name)
	if err := os.MkdirAll(ld.Path, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create %s: %w", ld.Path, err)
	}
	st.Status = ralph.StatusRunning // what the hooks are told, before the state is written
	p := &spawnPane{m: m, o: o, ld: ld, st: st}
	// The hooks' output goes where the monitor's will.
	out := MonitorLog(ld)
	starter := driver.Starter{Dir: ld, Workers: m.Dir(), Name: o.Name, Wrapper: worker.RunWrapper(), Now: time.Now,
		Detail: out, Say: func(format string, args ...any) {
			fmt.Fprintf(out, "[ralph] %s: %s\n", o.Name, fmt.Sprintf(format, args...))
		},
		Recorded: func(error) {}, Pane: p}
	if _, err := starter.Start(st, 1); err != nil {
		os.RemoveAll(ld.Path)
		var se *driver.StartError
		if errors.As(err, &se) && se.Reason == driver.ReasonIOError {
			return nil, fmt.Errorf("cannot write %s: %w", ld.PromptCopy(), se.Err)
		}
		return nil, err
	}
	return p.w, nil
}

// spawnPane makes iteration 1's pane: it creates the worker, in tmux, with the agent under
// the wrapper that records its exit code, then writes the new loop's state.
type spawnPane struct {
	m  *worker.Machine
	o  worker.SpawnOptions
	ld ralph.Dir
	st *ralph.State
	w  *state.Worker
}

func (p *spawnPane) Command() ([]string, error) { return p.o.Argv, nil }

// Start runs the hooks once the worker's directory (its worktree) exists, just before its
// program starts, and writes the state only once the worker runs.
func (p *spawnPane) Start(launch ralph.Launch, hooks func(string), begin func(*ralph.State, string, time.Time)) (bool, error) {
	o := p.o
	o.Tmux = true
	o.Start = &launch
	o.Metadata = map[string]any{"ralph": true, "ralph_iteration": 1}
	o.BeforeStart = hooks
	w, err := p.m.Spawn(o)
	if err != nil {
		return false, err
	}
	st := p.st
	st.WorkDir = w.Cwd
	if st.StagnationLimit > 0 {
		st.GitFingerprint, _ = git.Fingerprint(w.Cwd)
	}
	now := time.Now()
	st.WorkerName, st.Started = o.Name, now.Format(ralph.TimeFormat)
	begin(st, w.Cwd, now)
	if err := p.ld.Create(st); err != nil {
		On(p.m).Undo(w)
		return false, fmt.Errorf("cannot write loop state: %w", err)
	}
	p.w = w
	return true, nil
}

// Undo takes a loop that could not be set up completely down again: worker, record,
// heartbeat, worktree (unless it has changes) and loop directory.
func (l Loops) Undo(w *state.Worker) {
	_ = l.m.Stop(w, 2*time.Second)
	_ = cleanWorker(l.m, w, worker.Everything)
	os.RemoveAll(ralph.DirFor(l.m.Dir(), w.Name).Path)
}

// Loops that run one after another in the same worker: a chain's steps, an agent's specs. The
// first loop starts like any other; these record what comes after it.

// WriteAgentPrompt puts an agent's first prompt where its loop reads it.
func WriteAgentPrompt(ld ralph.Dir, prompt string) error {
	if err := ld.WriteAgentPrompt(prompt); err != nil {
		return fmt.Errorf("cannot write %s: %w", ld.AgentPromptPath(), err)
	}
	return nil
}

// SaveSequence records what runs after the first loop: a chain's steps, an agent's specs
// (either may be nil).
func SaveSequence(ld ralph.Dir, chain *ralph.ChainState, agent *ralph.AgentMode) error {
	if chain != nil {
		if err := ld.SaveChain(chain); err != nil {
			return fmt.Errorf("cannot write the chain's state: %w", err)
		}
	}
	if agent != nil {
		if err := ld.SaveAgentMode(agent); err != nil {
			return fmt.Errorf("cannot write the agent's state: %w", err)
		}
	}
	return nil
}
