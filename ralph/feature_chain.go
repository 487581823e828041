package ralph

import (
	"fmt"
	"path/filepath"

	"github.com/google/uuid"

	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state"
)

// A chain's steps run as successive loops in the same worker, driven by the same monitor:
// when a step's loop has ended, the chain decides (chain.go) and the next step's settings
// replace the loop's.

// chains is the feature that moves a chain on to its next step.
type chains struct{ drv services }

func (ch *chains) featureName() string { return "chain" }

// nextLoop moves a chain on after its step's loop ended; it reports whether the next step's
// loop is now to run.
func (ch *chains) nextLoop() bool {
	cs, err := ch.drv.dir().LoadChain()
	if err != nil || cs == nil {
		return false
	}
	st, err := ch.drv.dir().Load()
	if err != nil {
		return false
	}
	// A monitor that died after moving the chain on finds the loop still on the old step.
	if st.ChainStep == cs.CurrentStep {
		step := cs.Steps[cs.CurrentStep].Agent
		action := cs.StepEnded(OutcomeOf(st), st.ExitReason, ch.drv.clock().Now())
		if action == ChainStay {
			return false
		}
		ch.drv.recorded(ch.drv.dir().SaveChain(cs))
		ch.chainSays(cs, action, step, st.ExitReason)
	}
	if cs.Status != ChainRunning {
		return false
	}
	ch.applyStep(cs.CurrentStep, cs.Steps[cs.CurrentStep])
	return true
}

func (ch *chains) chainSays(cs *ChainState, action ChainAction, step, reason string) {
	var msg string
	switch action {
	case ChainNext:
		msg = fmt.Sprintf("step %s complete, starting %s", step, cs.Steps[cs.CurrentStep].Agent)
	case ChainDone:
		msg = fmt.Sprintf("step %s complete: chain complete (%s)", step, words.Plural(len(cs.Steps), "step"))
	case ChainStop:
		msg = fmt.Sprintf("step %s ended %s: chain stopped", step, reason)
	}
	ch.drv.say("chain: %s", msg)
	ch.drv.logEvent("CHAIN", msg)
}

// applyStep makes the loop the given step's: its prompt, iterations, checkers and agent.
func (ch *chains) applyStep(i int, step ChainStepState) {
	ch.drv.update(func(s *State) error { s.ApplyStep(i, step, uuid.NewString()); return nil })
	_ = ch.drv.workers().UpdateWorkers(nil, func(ws *state.Workers) error {
		if w := ws.Get(ch.drv.name()); w != nil {
			w.Cmd = append([]string{}, step.Profile.Cmd...)
		}
		return nil
	})
	ch.drv.freshLoop()
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
