package driver

import "github.com/swarm-dev/swarm/ralph"

// deadlineServices are what the iteration deadline asks of the driver: the one slice of its
// services (services.go) it uses.
type deadlineServices interface {
	endIteration(st *ralph.State, a agent, kind ralph.Ending)
}

// iterationDeadline is the feature that ends an iteration that ran out of time
// (--iteration-timeout). It looks at the working agent after the agent's signals and before
// the budget, so that of two endings due at the same look the same one wins as ever.
type iterationDeadline struct{ drv deadlineServices }

func (d *iterationDeadline) featureName() string { return "deadline" }

func (d *iterationDeadline) agentLook(st *ralph.State, a agent, w *screenWatch) bool {
	if !ralph.OutOfTime(w.facts) {
		return false
	}
	d.drv.endIteration(st, a, ralph.EndIterationTimeout)
	return true
}
