package ralph

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/uuid"

	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state"
)

// A chain's steps run as successive loops in the same worker, driven by the same monitor:
// when a step's loop has ended, the chain decides (chain.go) and the next step's settings
// replace the loop's.

// nextChainStep moves a chain on after its step's loop ended; it reports whether the next
// step's loop is now to run.
func (l *Loop) nextChainStep() bool {
	cs, err := l.cfg.Dir.LoadChain()
	if err != nil || cs == nil {
		return false
	}
	st, err := l.cfg.Dir.Load()
	if err != nil {
		return false
	}
	// A monitor that died after moving the chain on finds the loop still on the old step.
	if st.ChainStep == cs.CurrentStep {
		step := cs.Steps[cs.CurrentStep].Agent
		action := cs.StepEnded(OutcomeOf(st), st.ExitReason, l.cfg.Clock.Now())
		if action == ChainStay {
			return false
		}
		l.recorded(l.cfg.Dir.SaveChain(cs))
		l.chainSays(cs, action, step, st.ExitReason)
	}
	if cs.Status != ChainRunning {
		return false
	}
	l.applyStep(cs.CurrentStep, cs.Steps[cs.CurrentStep])
	return true
}

func (l *Loop) chainSays(cs *ChainState, action ChainAction, step, reason string) {
	var msg string
	switch action {
	case ChainNext:
		msg = fmt.Sprintf("step %s complete, starting %s", step, cs.Steps[cs.CurrentStep].Agent)
	case ChainDone:
		msg = fmt.Sprintf("step %s complete: chain complete (%s)", step, words.Plural(len(cs.Steps), "step"))
	case ChainStop:
		msg = fmt.Sprintf("step %s ended %s: chain stopped", step, reason)
	}
	l.say("chain: %s", msg)
	l.logEvent("CHAIN", msg)
}

// applyStep makes the loop the given step's: its prompt, iterations, checkers and agent.
func (l *Loop) applyStep(i int, step ChainStepState) {
	l.update(func(s *State) error { s.ApplyStep(i, step, uuid.NewString()); return nil })
	_ = l.cfg.Workers.UpdateWorkers(nil, func(ws *state.Workers) error {
		if w := ws.Get(l.cfg.Name); w != nil {
			w.Cmd = append([]string{}, step.Profile.Cmd...)
		}
		return nil
	})
	l.freshLoop()
}

// freshLoop readies the monitor for the next loop in the same worker: the done patterns and
// prompt may differ, so they are compiled afresh, and a DONE file was the last loop's word.
func (l *Loop) freshLoop() {
	l.doneRE, l.matcher, l.compaction = nil, nil, nil
	if err := os.Remove(l.cfg.Dir.DoneFile()); err == nil {
		l.say("removed %s: it ended the previous loop", l.cfg.Dir.DoneFile())
	}
}

// ApplyStep turns the loop state into a fresh loop of chain step i.
func (st *State) ApplyStep(i int, step ChainStepState, runID string) {
	p := step.Profile
	st.ChainStep, st.RunID = i, runID
	st.PromptFile, st.MaxIterations = p.PromptFile, step.MaxIterations
	st.Checks = append(append([]string{}, p.Checks...), step.Checks...)
	st.SetDonePatterns(p.DonePatterns, !st.NoBuiltinMarkers)
	if p.InactivityTimeout > 0 {
		st.InactivityTimeout = p.InactivityTimeout
	}
	if p.PromptMode != "" {
		st.PromptMode = p.PromptMode
	}
	if len(p.Cmd) > 0 {
		st.Agent = filepath.Base(p.Cmd[0])
	}
	st.resetForNextLoop()
}
