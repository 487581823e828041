package driver

import (
	"context"
	"errors"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/ralph/testrun"
)

// The test gate: supervision's tests run on the commits an iteration made, which are reverted
// when they break the tests (what to do at each step is Gate's, in ralph/supervision_policy.go).

// gateServices are what the test gate asks of the driver: the one slice of its services
// (services.go) it uses.
type gateServices interface {
	supervisionSay(format string, args ...any)
	updateSupervision(fn func(*ralph.SupervisionState))
	transition(st *ralph.State, a agent, dec ralph.Decision) *ralph.State
	ctx() context.Context
	worker() (*state.Worker, error)
}

// testGate is the feature that runs the test gate when an iteration ended with commits.
type testGate struct{ drv gateServices }

func (g *testGate) featureName() string { return "gate" }

// testTimeout bounds one run of the test command.
const testTimeout = 30 * time.Minute

// endStep runs the gate when the policy asks for it.
func (g *testGate) endStep(step ralph.EndStep, r *endStepRun) bool {
	if step != ralph.EndGate {
		return false
	}
	o := g.gateCommits(r.st, limits(r.st).Supervision)
	r.stop = o.stop
	if !o.stop {
		r.facts.Gated, r.facts.Reverted, r.facts.Untested = true, o.reverted, o.untested
	}
	return true
}

// gateOutcome is how the test gate after an iteration went.
type gateOutcome struct {
	stop     bool // the loop must stop: the test command cannot run at all, or a revert failed
	reverted bool // the iteration's commits were reverted
	untested bool // the loop was stopped while the tests ran: nothing kept or reverted on their word
}

// gateCommits runs the test gate after an iteration. The tests run under the loop's context:
// a loop stopped meanwhile ends them at once, and the iteration counts as not tested.
func (g *testGate) gateCommits(st *ralph.State, rc ralph.SupervisionConfig) gateOutcome {
	f := ralph.GateFacts{Configured: ralph.GateOn(st, rc), StartCommit: ralph.ShortCommit(st.IterationStartCommit)}
	cwd, commits := g.iterationCommits(st, f.Configured)
	f.Commits = shorts(commits)
	for {
		step, dec := ralph.Gate(f)
		g.drv.transition(st, agent{}, dec)
		switch step {
		case ralph.GateDone:
			return gateOutcome{untested: f.CutShort}
		case ralph.GateStop:
			return gateOutcome{stop: true}
		case ralph.GateRunTests:
			g.drv.updateSupervision(func(rs *ralph.SupervisionState) { rs.LastCommit = ralph.ShortCommit(commits[0]) })
			res := runTests(g.drv.ctx(), cwd, rc.TestCommand, testTimeout)
			f.Tested, f.TestsPassed, f.CutShort = true, res.Outcome == testrun.Passed, res.Outcome == testrun.CutShort
			if res.Outcome == testrun.CannotRun {
				f.ConfigError = res.Detail
			}
		case ralph.GateRunBaseline:
			already, err := testsFailedAt(g.drv.ctx(), cwd, st.IterationStartCommit, rc.TestCommand, testTimeout)
			f.BaselineTested, f.BaselineFailed = true, err == nil && already
			f.CutShort = errors.Is(err, errTestsCutShort)
		case ralph.GateRevert:
			stop := g.revert(st, cwd, commits, rc)
			return gateOutcome{stop: stop, reverted: !stop}
		}
	}
}

// iterationCommits lists the commits the iteration made in the worker's directory, newest
// first, when the test gate needs them.
func (g *testGate) iterationCommits(st *ralph.State, needed bool) (cwd string, commits []string) {
	if !needed {
		return "", nil
	}
	w, err := g.drv.worker()
	if err != nil {
		return "", nil
	}
	commits, _ = git.CommitsSince(w.Cwd, st.IterationStartCommit)
	return w.Cwd, commits
}

// revert undoes an iteration's commits, newest first, and pushes the reverts when asked to.
// It reports true when the loop must stop because a revert failed.
func (g *testGate) revert(st *ralph.State, cwd string, commits []string, rc ralph.SupervisionConfig) bool {
	reverted, err := git.Revert(cwd, commits)
	g.drv.updateSupervision(func(rs *ralph.SupervisionState) {
		rs.Rollbacks += len(reverted)
		rs.LastCommit = ralph.ShortCommit(git.Head(cwd))
	})
	dec, stop := ralph.Reverted(shorts(reverted), err)
	g.drv.transition(st, agent{}, dec)
	if stop || !rc.Push {
		return stop
	}
	if err := git.Push(cwd); err != nil {
		g.drv.supervisionSay("git push failed: %s", words.OneLine(err.Error()))
	} else {
		g.drv.supervisionSay("pushed the reverts")
	}
	return false
}

func shorts(shas []string) []string {
	out := make([]string, len(shas))
	for i, s := range shas {
		out[i] = ralph.ShortCommit(s)
	}
	return out
}
