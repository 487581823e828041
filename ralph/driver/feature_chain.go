package driver

import (
	"fmt"

	"github.com/google/uuid"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state"
)

// A chain's steps run as successive loops in the same worker, driven by the same monitor:
// when a step's loop has ended, the chain decides (ralph/chain.go) and the next step's settings
// replace the loop's.

// chainServices are what a chain asks of the driver: the one slice of its services (services.go)
// it uses.
type chainServices interface {
	dir() ralph.Dir
	name() string
	workers() *state.Dir
	clock() Clock
	say(format string, args ...any)
	logEvent(kind, text string)
	recorded(err error)
	update(fn func(*ralph.State) error)
	freshLoop()
}

// chains is the feature that moves a chain on to its next step.
type chains struct{ drv chainServices }

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
		action := cs.StepEnded(ralph.OutcomeOf(st), st.ExitReason, ch.drv.clock().Now())
		if action == ralph.ChainStay {
			return false
		}
		ch.drv.recorded(ch.drv.dir().SaveChain(cs))
		ch.chainSays(cs, action, step, st.ExitReason)
	}
	if cs.Status != ralph.ChainRunning {
		return false
	}
	ch.applyStep(cs.CurrentStep, cs.Steps[cs.CurrentStep])
	return true
}

func (ch *chains) chainSays(cs *ralph.ChainState, action ralph.ChainAction, step, reason string) {
	var msg string
	switch action {
	case ralph.ChainNext:
		msg = fmt.Sprintf("step %s complete, starting %s", step, cs.Steps[cs.CurrentStep].Agent)
	case ralph.ChainDone:
		msg = fmt.Sprintf("step %s complete: chain complete (%s)", step, words.Plural(len(cs.Steps), "step"))
	case ralph.ChainStop:
		msg = fmt.Sprintf("step %s ended %s: chain stopped", step, reason)
	}
	ch.drv.say("chain: %s", msg)
	ch.drv.logEvent("CHAIN", msg)
}

// applyStep makes the loop the given step's: its prompt, iterations, checkers and agent.
func (ch *chains) applyStep(i int, step ralph.ChainStepState) {
	ch.drv.update(func(s *ralph.State) error { s.ApplyStep(i, step, uuid.NewString()); return nil })
	_ = ch.drv.workers().UpdateWorkers(nil, func(ws *state.Workers) error {
		if w := ws.Get(ch.drv.name()); w != nil {
			w.Cmd = append([]string{}, step.Profile.Cmd...)
		}
		return nil
	})
	ch.drv.freshLoop()
}
