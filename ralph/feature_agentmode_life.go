package ralph

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/swarm-dev/swarm/ralph/inbox"
)

// An agent's life around its specs: what it says, how it stops, and what a pause (SIGINT,
// swarm ralph pause) and a resume do to the spec it is working on.

// agentSay writes a line to the agent log, the monitor's output and iterations.log.
func (ag *agentMode) agentSay(am *AgentMode, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	if am.Log != "" {
		ag.drv.recorded(AgentLog(am.Log, ag.drv.clock().Now(), "%s", text))
	}
	ag.drv.say("agent: %s", text)
	ag.drv.logEvent("AGENT", text)
}

// agentStops ends agent mode for reason: the log's last lines, the loop stopped (failed when
// specs kept failing or the inbox cannot be read) and, for a normal end, no session left to
// resume.
func (ag *agentMode) agentStops(am *AgentMode, reason string) {
	now := ag.drv.clock().Now()
	am.Stage, am.StopReason = "", reason
	ag.agentSay(am, "%s", am.StopMessage(reason))
	ag.agentSay(am, "%s", am.SummaryLine(now))
	ag.drv.recorded(ag.drv.dir().SaveAgentMode(am))
	if reason != AgentInboxCorrupt {
		if err := os.Remove(SessionPath(am.Project)); err != nil && !errors.Is(err, os.ErrNotExist) {
			ag.drv.recorded(err)
		}
	}
	status := StatusStopped
	if reason == AgentMaxFailures || reason == AgentInboxCorrupt {
		status = StatusFailed
	}
	ag.drv.update(func(s *State) error {
		s.Status, s.ExitReason, s.Phase, s.Ended = status, reason, PhaseEnded, now.Format(TimeFormat)
		return nil
	})
	if reason == AgentInboxCorrupt {
		ag.escalateInbox(am)
	}
}

// escalateInbox reports an agent stopped by an inbox it cannot read as supervision reports a
// loop it gives up on: in the log, and to its webhook where it has one.
func (ag *agentMode) escalateInbox(am *AgentMode) {
	cur, err := ag.drv.dir().Load()
	if err != nil {
		return
	}
	why := "inbox " + inbox.Inbox{Root: am.Project}.Path() + " cannot be read"
	if hook := ag.notify.escalation(cur, why); hook != nil {
		ag.notify.send(cur, Notice{NotifyFailed, why}, nil, hook)
	}
}

// paused puts the spec of a paused agent back to pending (the seed's SIGINT); the
// session keeps it as its current spec, so a resume or a new agent takes it up again.
func (ag *agentMode) paused() {
	am, err := ag.drv.dir().LoadAgentMode()
	if err != nil || am == nil || am.Stage == "" {
		return
	}
	if st, err := ag.drv.dir().Load(); err != nil || st.Status != StatusPaused {
		return
	}
	ag.requeue(am)
	ag.agentSay(am, "Interrupted: %s %s goes back to pending (swarm ralph resume %s to go on)", am.SpecID, am.Spec, ag.drv.name())
	ag.drv.recorded(ag.drv.dir().SaveAgentMode(am))
}

// runStarted takes up the spec a pause put back to pending. A spec removed from the inbox
// meanwhile is dropped, and the next one fetched.
func (ag *agentMode) runStarted() {
	am, err := ag.drv.dir().LoadAgentMode()
	if err != nil || am == nil || am.Stage == "" {
		return
	}
	st, err := ag.drv.dir().Load()
	if err != nil || st.Status != StatusRunning {
		return
	}
	resumed, gone := false, false
	err = inbox.Inbox{Root: am.Project}.Update(func(recs []inbox.Record) ([]inbox.Record, error) {
		i := inbox.Index(recs, am.SpecID)
		switch {
		case i < 0:
			gone = true
		case recs[i].Status == inbox.Pending:
			inbox.Activate(recs, i, ag.drv.clock().Now())
			resumed = true
		}
		return recs, nil
	})
	switch {
	case err != nil:
		ag.agentSay(am, "cannot read the inbox: %v", err)
	case resumed:
		ag.agentSay(am, "RESUME: %s %s (%s)", am.SpecID, am.Spec, am.Stage)
	case gone:
		ag.agentSay(am, "%s %s is no longer in the inbox; fetching the next spec", am.SpecID, am.Spec)
		am.ClearSpec()
		if ag.fetchNext(am, st) {
			ag.applyAgentStage(am)
		}
	}
}

// noteAgentIteration logs a CONSTRUCT iteration's start in the agent log.
func (d Dir) noteAgentIteration(now time.Time, n int) error {
	am, err := d.LoadAgentMode()
	if err != nil || am == nil || am.Stage != StageConstruct || am.Log == "" {
		return nil
	}
	return AgentLog(am.Log, now, "CONSTRUCT: starting iteration %d", n)
}

// SequencePending reports a loop of an agent or a chain that ended with a verdict of its own
// while the next loop was still to be decided or started: its monitor died in between, and a
// new monitor must carry on. A loop ended from outside (killed), or without a verdict, has
// nothing to carry on.
func (d Dir) SequencePending(st *State) bool {
	if st.Status != StatusStopped && st.Status != StatusFailed {
		return false
	}
	if OutcomeOf(st) == OutcomeOther && st.ExitReason != "budget_exceeded" {
		return false
	}
	if am, err := d.LoadAgentMode(); err == nil && am != nil {
		return am.Stage != ""
	}
	cs, err := d.LoadChain()
	return err == nil && cs != nil && cs.Status == ChainRunning
}
