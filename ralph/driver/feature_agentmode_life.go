package driver

import (
	"errors"
	"fmt"
	"os"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/inbox"
	"github.com/swarm-dev/swarm/ralph/words"
)

// An agent's life around its specs: what it says, how it stops, and what a pause (SIGINT,
// swarm ralph pause) and a resume do to the spec it is working on.

// agentSay writes a line to the agent log, the monitor's output and iterations.log.
func (ag *agentMode) agentSay(am *ralph.AgentMode, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	if am.Log != "" {
		ag.drv.recorded(ralph.AgentLog(am.Log, ag.drv.clock().Now(), "%s", text))
	}
	ag.drv.say("agent: %s", text)
	ag.drv.logEvent("AGENT", text)
}

// sayer is agentSay for am, as the agent mode's decisions take it.
func (ag *agentMode) sayer(am *ralph.AgentMode) func(string, ...any) {
	return func(format string, args ...any) { ag.agentSay(am, format, args...) }
}

// agentStops ends agent mode for reason: the log's last lines, the loop stopped (failed when
// specs kept failing or the inbox or its shared remote cannot be read) and, for a normal end,
// no session left to resume.
func (ag *agentMode) agentStops(am *ralph.AgentMode, reason string) {
	now := ag.drv.clock().Now()
	am.Stage, am.StopReason = "", reason
	ag.agentSay(am, "%s", am.StopMessage(reason))
	ag.agentSay(am, "%s", am.SummaryLine(now))
	ag.drv.recorded(ag.drv.dir().SaveAgentMode(am))
	if n := len(am.Session.Undelivered); n > 0 {
		ag.agentSay(am, "%s committed here not on %s yet: the next swarm agent --shared here pushes them",
			words.Plural(n, "spec"), am.Shared.Remote)
	}
	if !am.SessionToResume(reason) {
		if err := os.Remove(ralph.SessionPath(am.Project)); err != nil && !errors.Is(err, os.ErrNotExist) {
			ag.drv.recorded(err)
		}
	}
	status := ralph.StatusStopped
	if reason == ralph.AgentMaxFailures || reason == ralph.AgentInboxCorrupt || reason == ralph.AgentRemoteUnreachable {
		status = ralph.StatusFailed
	}
	ag.drv.update(func(s *ralph.State) error {
		s.Status, s.ExitReason, s.Phase, s.Ended = status, reason, ralph.PhaseEnded, now.Format(ralph.TimeFormat)
		return nil
	})
	if reason == ralph.AgentInboxCorrupt {
		ag.escalateInbox(am)
	}
}

// escalateInbox reports an agent stopped by an inbox it cannot read as supervision reports a
// loop it gives up on: in the log, and to its webhook where it has one.
func (ag *agentMode) escalateInbox(am *ralph.AgentMode) {
	cur, err := ag.drv.dir().Load()
	if err != nil {
		return
	}
	why := "inbox " + inbox.Inbox{Root: am.Project}.Path() + " cannot be read"
	if hook := ag.notify.escalation(cur, why); hook != nil {
		ag.notify.send(cur, ralph.Notice{Event: ralph.NotifyFailed, Reason: why}, nil, hook)
	}
}

// paused puts the spec of a paused agent back to pending (the seed's SIGINT); the
// session keeps it as its current spec, so a resume or a new agent takes it up again.
func (ag *agentMode) paused() {
	am, err := ag.drv.dir().LoadAgentMode()
	if err != nil || am == nil || am.Stage == "" {
		return
	}
	if st, err := ag.drv.dir().Load(); err != nil || st.Status != ralph.StatusPaused {
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
	if err != nil || st.Status != ralph.StatusRunning {
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
