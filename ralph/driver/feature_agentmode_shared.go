package driver

import (
	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/sharedinbox"
	"github.com/swarm-dev/swarm/ralph/words"
)

// Agent mode across clones (--shared): the agent's claim on its spec is renewed at every
// iteration's start, marked done or failed when the spec ends, and released when the agent
// stops mid-spec; a renewal the remote refuses means the spec is someone else's now. Without
// --shared none of this runs.

// beforeStart renews the claim on the agent's spec before each iteration of its loops. A
// renewal refused ends the spec's loop (claim_lost); one that does not get through is said,
// and the iteration starts all the same.
func (ag *agentMode) beforeStart(st *ralph.State) (ralph.Decision, bool) {
	am, err := ag.drv.dir().LoadAgentMode()
	if err != nil || am == nil || am.Shared == nil || am.Stage == "" || am.SpecID == "" || st.RunID != am.RunID {
		return ralph.Decision{}, false
	}
	step, err := sharedinbox.Renew(am, ag.drv.clock().Now())
	switch step {
	case ralph.ClaimLost:
		return ralph.ClaimTakenOver(am.SpecID, am.Shared.Remote), true
	case ralph.ClaimUnsent:
		ag.agentSay(am, "CLAIM: could not renew %s on %s (%s); going on", am.SpecID, am.Shared.Remote, words.OneLine(err.Error()))
	}
	ag.drv.recorded(ag.drv.dir().SaveAgentMode(am))
	return ralph.Decision{}, false
}

// lose sets the work on a spec whose claim was taken over aside; the spec is someone else's.
func (ag *agentMode) lose(am *ralph.AgentMode) {
	sharedinbox.Lose(am, am.SpecID, am.Spec, ralph.LostWhy(nil), ag.drv.clock().Now(), ag.sayer(am))
}

// stillClaimed renews the claim before a spec is committed: a spec taken over meanwhile is
// lost instead (false).
func (ag *agentMode) stillClaimed(am *ralph.AgentMode) bool {
	if am.Shared == nil {
		return true
	}
	switch step, err := sharedinbox.Renew(am, ag.drv.clock().Now()); step {
	case ralph.ClaimLost:
		ag.lose(am)
		return false
	case ralph.ClaimUnsent:
		ag.agentSay(am, "CLAIM: could not renew %s on %s (%s); committing it all the same", am.SpecID, am.Shared.Remote, words.OneLine(err.Error()))
	}
	return true
}

// deliver pushes a committed spec to the shared remote and marks its claim done.
func (ag *agentMode) deliver(am *ralph.AgentMode, commit string) {
	if am.Shared != nil {
		sharedinbox.Deliver(am, commit, ag.drv.clock().Now(), ag.sayer(am))
	}
}

// claimFailed marks the claim on a failed spec failed, with why.
func (ag *agentMode) claimFailed(am *ralph.AgentMode, why string) {
	if am.Shared == nil {
		return
	}
	switch step, err := sharedinbox.Finish(am, sharedinbox.Finished{Error: why}, ag.drv.clock().Now()); step {
	case ralph.ClaimLost:
		ag.agentSay(am, "CLAIM: %s was taken over before it could be marked failed", am.SpecID)
	case ralph.ClaimUnsent:
		ag.agentSay(am, "CLAIM: could not mark %s failed on %s (%s); it expires after --claim-timeout", am.SpecID,
			am.Shared.Remote, words.OneLine(err.Error()))
	}
}

// releaseClaim gives up the claim on a spec the agent stops working on before it ended.
func (ag *agentMode) releaseClaim(am *ralph.AgentMode) {
	if am.Shared == nil {
		return
	}
	if step, err := sharedinbox.Release(am); step == ralph.ClaimUnsent && err != nil {
		ag.agentSay(am, "CLAIM: could not release %s on %s (%s); it expires after --claim-timeout", am.SpecID,
			am.Shared.Remote, words.OneLine(err.Error()))
	}
}
