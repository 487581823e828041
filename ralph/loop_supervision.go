package ralph

import (
	"errors"
	"os"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/tmux"
)

// Supervision's effects: running the tests and reverting commits for the test gate, and
// reporting a loop that gave up. What to do is decided in supervision_policy.go.

// testTimeout bounds one run of the test command.
const testTimeout = 30 * time.Minute

// gateOn reports whether the test gate looks at the loop's iterations: supervision is on, with
// a test command and rollback, and the iteration's start commit is known.
func gateOn(st *State, rc SupervisionConfig) bool {
	return rc.Enabled && rc.TestCommand != "" && rc.RollbackOnTestFailure && st.IterationStartCommit != ""
}

// gateOutcome is how the test gate after an iteration went.
type gateOutcome struct {
	stop     bool // the loop must stop: the test command cannot run at all, or a revert failed
	reverted bool // the iteration's commits were reverted
	untested bool // the loop was stopped while the tests ran: nothing kept or reverted on their word
}

// gateCommits runs the test gate after an iteration. The tests run under the loop's context:
// a loop stopped meanwhile ends them at once, and the iteration counts as not tested.
func (l *Loop) gateCommits(st *State, rc SupervisionConfig) gateOutcome {
	f := GateFacts{Configured: gateOn(st, rc), StartCommit: short(st.IterationStartCommit)}
	cwd, commits := l.iterationCommits(st, f.Configured)
	f.Commits = shorts(commits)
	for {
		step, dec := Gate(f)
		l.transition(st, agent{}, dec)
		switch step {
		case GateDone:
			return gateOutcome{untested: f.CutShort}
		case GateStop:
			return gateOutcome{stop: true}
		case GateRunTests:
			l.updateSupervision(func(rs *SupervisionState) { rs.LastCommit = short(commits[0]) })
			_, terr := runTests(l.ctx(), cwd, rc.TestCommand, testTimeout)
			f.Tested, f.TestsPassed, f.CutShort = true, terr == nil, errors.Is(terr, errTestsCutShort)
			if errors.Is(terr, errTestConfig) {
				f.ConfigError = terr.Error()
			}
		case GateRunBaseline:
			already, err := testsFailedAt(l.ctx(), cwd, st.IterationStartCommit, rc.TestCommand, testTimeout)
			f.BaselineTested, f.BaselineFailed = true, err == nil && already
			f.CutShort = errors.Is(err, errTestsCutShort)
		case GateRevert:
			stop := l.revert(st, cwd, commits, rc)
			return gateOutcome{stop: stop, reverted: !stop}
		}
	}
}

// iterationCommits lists the commits the iteration made in the worker's directory, newest
// first, when the test gate needs them.
func (l *Loop) iterationCommits(st *State, needed bool) (cwd string, commits []string) {
	if !needed {
		return "", nil
	}
	w, err := l.worker()
	if err != nil {
		return "", nil
	}
	commits, _ = git.CommitsSince(w.Cwd, st.IterationStartCommit)
	return w.Cwd, commits
}

// revert undoes an iteration's commits, newest first, and pushes the reverts when asked to.
// It reports true when the loop must stop because a revert failed.
func (l *Loop) revert(st *State, cwd string, commits []string, rc SupervisionConfig) bool {
	reverted, err := git.Revert(cwd, commits)
	l.updateSupervision(func(rs *SupervisionState) {
		rs.Rollbacks += len(reverted)
		rs.LastCommit = short(git.Head(cwd))
	})
	dec, stop := Reverted(shorts(reverted), err)
	l.transition(st, agent{}, dec)
	if stop || !rc.Push {
		return stop
	}
	if err := git.Push(cwd); err != nil {
		l.supervisionSay("git push failed: %s", OneLine(err.Error()))
	} else {
		l.supervisionSay("pushed the reverts")
	}
	return false
}

func shorts(shas []string) []string {
	out := make([]string, len(shas))
	for i, s := range shas {
		out[i] = short(s)
	}
	return out
}

// lastOutput returns the last n non-blank lines the agent showed: from the screen saved when
// the iteration ended, or else from the pane. tmux's own "Pane is dead" note is left out.
func (l *Loop) lastOutput(a agent, iteration, n int) []string {
	var lines []string
	if data, err := os.ReadFile(l.cfg.Dir.ScreenPath(iteration)); err == nil {
		lines = screen.Lines(string(data))
	} else if a.paneID != "" {
		lines, _ = l.capture(a, 0)
	}
	return lastN(nonBlank(lines), n)
}

// nonBlank leaves out blank lines and tmux's own "Pane is dead" note.
func nonBlank(lines []string) []string {
	out := []string{}
	for _, ln := range lines {
		if strings.TrimSpace(ln) == "" || tmux.IsDeadNote(ln) {
			continue
		}
		out = append(out, ln)
	}
	return out
}

func lastN(lines []string, n int) []string {
	if len(lines) > n {
		return append([]string{}, lines[len(lines)-n:]...)
	}
	return append([]string{}, lines...)
}

// Resurrected records that this monitor took over the loop from one (deadPID) that died, and
// reports whether the loop was given up because its monitor keeps dying.
func (l *Loop) Resurrected(deadPID int, mayGiveUp bool) (giveUp bool) {
	st, err := l.cfg.Dir.Load()
	if err != nil {
		return false
	}
	now := l.cfg.Clock.Now()
	var dec Decision
	l.updateSupervision(func(rs *SupervisionState) {
		rs.Resurrections++
		var recent []time.Time
		for _, s := range rs.RecentResurrections {
			if t, err := time.Parse(time.RFC3339, s); err == nil {
				recent = append(recent, t)
			}
		}
		var keep []time.Time
		keep, dec = Resurrection(recent, now, deadPID, st.CurrentIteration, rs.Resurrections, mayGiveUp)
		rs.RecentResurrections = rs.RecentResurrections[:0]
		for _, t := range keep {
			rs.RecentResurrections = append(rs.RecentResurrections, t.UTC().Format(time.RFC3339))
		}
		rs.PID = os.Getpid()
	})
	l.transition(st, l.agentNow(), dec)
	return dec.Stopping()
}

// Crashed fails a loop whose monitor hit a fault of its own (a panic in its goroutine): see
// MonitorCrashed. Only this loop is affected; a Regent drives the others on.
func (l *Loop) Crashed(fault string) {
	st, err := l.cfg.Dir.Load()
	if err != nil {
		return
	}
	l.transition(st, l.agentNow(), MonitorCrashed(st.CurrentIteration, fault))
}

// RegentCrashLoop says loudly that the Regent keeps dying and no longer drives this loop: the
// loop is not failed and its agent is not ended (the fault is the daemon's), and the
// escalation goes where the loop's escalations go.
func (l *Loop) RegentCrashLoop(reason string) {
	st, err := l.cfg.Dir.Load()
	if err != nil {
		return
	}
	l.notify.announce(st, l.agentNow(), Decision{Escalate: reason})
}
