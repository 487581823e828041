package driver

import (
	"github.com/swarm-dev/swarm/ralph"
)

// The plan's limits as the agent tells them (see ralph/pace.go): read from the loop's box at
// the end of every iteration and before the next starts, kept in the loop's state for the
// views, and, with a headroom, parking the loop before the 5-hour limit is reached.

// paceServices are what the pace needs of the driver.
type paceServices interface {
	dir() ralph.Dir
	clock() Clock
	update(fn func(*ralph.State) error)
}

// pace is the feature that reads the agent's figures and keeps the headroom.
type pace struct{ drv paceServices }

func (p *pace) featureName() string { return "pace" }

// iterationEnding keeps the figures the ending iteration's agent told.
func (p *pace) iterationEnding(st *ralph.State) { p.read(st) }

// beforeStart parks the loop when the 5-hour limit is used up to its headroom, until it resets.
func (p *pace) beforeStart(st *ralph.State) (ralph.Decision, bool) {
	p.read(st)
	f, ok := ralph.HeadroomReached(st.RateLimits, st.LimitHeadroom, p.drv.clock().Now())
	if !ok {
		return ralph.Decision{}, false
	}
	return ralph.LimitHit(st.CurrentIteration, f, limits(st)), true
}

// read records the figures in the box that are newer than st's, in st and in the loop's state.
func (p *pace) read(st *ralph.State) {
	rl, ok := p.drv.dir().ReadPace(st.AgentTokenSum, st.RateLimits)
	if !ok {
		return
	}
	st.RateLimits = &rl
	p.drv.update(func(cur *ralph.State) error {
		cur.RateLimits = &rl
		return nil
	})
}
