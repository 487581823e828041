package ralph

import (
	"testing"

	"github.com/swarm-dev/swarm/ralph/inbox"
)

func TestAClaimPushAcceptedGoesOn(t *testing.T) {
	for _, op := range []ClaimOp{ClaimTake, ClaimRenew, ClaimFinish, ClaimRelease} {
		if s := AfterClaimPush(op, PushAccepted); s != ClaimGoOn {
			t.Errorf("op %d: %d", op, s)
		}
	}
}

func TestATakeRefusedTriesTheNextSpec(t *testing.T) {
	if s := AfterClaimPush(ClaimTake, PushRejected); s != ClaimSkip {
		t.Errorf("%d", s)
	}
}

func TestATakeWithoutTheRemoteStopsTheAgent(t *testing.T) {
	if s := AfterClaimPush(ClaimTake, PushUnreachable); s != ClaimStop {
		t.Errorf("%d", s)
	}
}

func TestARenewalRefusedLosesTheSpec(t *testing.T) {
	if s := AfterClaimPush(ClaimRenew, PushRejected); s != ClaimLost {
		t.Errorf("%d", s)
	}
}

func TestARenewalWithoutTheRemoteGoesOnUnsent(t *testing.T) {
	if s := AfterClaimPush(ClaimRenew, PushUnreachable); s != ClaimUnsent {
		t.Errorf("%d", s)
	}
}

func TestAFinishRefusedMeansTheSpecWasTakenOver(t *testing.T) {
	if s := AfterClaimPush(ClaimFinish, PushRejected); s != ClaimLost {
		t.Errorf("%d", s)
	}
}

func TestAFinishWithoutTheRemoteIsUnsent(t *testing.T) {
	if s := AfterClaimPush(ClaimFinish, PushUnreachable); s != ClaimUnsent {
		t.Errorf("%d", s)
	}
}

func TestAReleaseRefusedOrUnsentIsNoFailure(t *testing.T) {
	for _, a := range []PushAnswer{PushRejected, PushUnreachable} {
		if s := AfterClaimPush(ClaimRelease, a); s != ClaimUnsent {
			t.Errorf("answer %d: %d", a, s)
		}
	}
}

func TestAStageEndedByALostClaimLosesTheSpec(t *testing.T) {
	for _, stage := range []string{StagePlan, StageConstruct} {
		if step, why := AfterStage(stage, StageEnd{Outcome: OutcomeFailure, Reason: ReasonClaimLost}, false); step != StepLost || why != "" {
			t.Errorf("%s: %v %q", stage, step, why)
		}
	}
}

func TestALostSpecIsAFailureButNotTheAgentsOwn(t *testing.T) {
	am := &AgentMode{Stage: StageConstruct, SpecID: "q-aaaa", Session: AgentSession{CurrentSpecID: "q-aaaa", Claim: "c1", ConsecutiveFailures: 1}}
	am.SpecLost()
	if am.Session.SpecsFailed != 1 || am.Session.ConsecutiveFailures != 1 || am.Session.Claim != "" || am.Session.CurrentSpecID != "" || am.Stage != "" {
		t.Errorf("after a lost spec: %+v", am)
	}
}

func TestAClaimTakenOverStopsTheLoopFailed(t *testing.T) {
	d := ClaimTakenOver("q-aaaa", "origin")
	if !d.Stopping() || d.Status != StatusFailed || d.ExitReason != ReasonClaimLost || len(d.Lines) != 1 {
		t.Errorf("decision %+v", d)
	}
	if OutcomeOf(&State{Status: d.Status, ExitReason: d.ExitReason}) == OutcomeOther {
		t.Error("a lost claim must carry the agent on to its next spec, as a verdict does")
	}
}

func TestTheSessionOutlivesSpecsNotDelivered(t *testing.T) {
	am := &AgentMode{Shared: &SharedInbox{Remote: "origin"}}
	if am.SessionToResume(AgentInboxEmpty) {
		t.Error("an empty inbox ends the session")
	}
	if !am.SessionToResume(AgentRemoteUnreachable) {
		t.Error("an agent that could not reach its remote leaves the session to resume")
	}
	am.Session.Undelivered = []UndeliveredSpec{{ID: "q-aaaa"}}
	if !am.SessionToResume(AgentInboxEmpty) {
		t.Error("specs not pushed yet keep the session")
	}
}

func TestASharedAgentSaysWhereItFoundNothing(t *testing.T) {
	am := &AgentMode{Shared: &SharedInbox{Remote: "upstream", ClaimTimeout: 90}}
	if got := am.StopMessage(AgentInboxEmpty); got != "Inbox empty (nothing left to claim on upstream). Agent stopping." {
		t.Errorf("%q", got)
	}
	if got := am.StopMessage(AgentRemoteUnreachable); got != "Shared remote 'upstream' cannot be reached. Agent stopping." {
		t.Errorf("%q", got)
	}
	if am.Shared.Timeout().Seconds() != 90 || SpecBranch("q-aaaa") != "swarm/spec/q-aaaa" {
		t.Error("timeout or spec branch")
	}
	if LostWhy(nil) != "its claim was taken over or released" || LostWhy(&inbox.Claim{Host: "h", Worker: "w", State: "active"}) != "claimed by h/w (active)" {
		t.Error("lost why")
	}
}
