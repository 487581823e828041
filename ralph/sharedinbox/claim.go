package sharedinbox

import (
	"errors"
	"fmt"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/ralph/inbox"
)

// The agent's changes to its claims: each is a new claim commit on top of the last, pushed
// with a lease on the claim the agent expects on the remote.

// claimFor is the agent's claim on spec id in state, made now.
func claimFor(am *ralph.AgentMode, id, spec, state string, now time.Time) inbox.Claim {
	return inbox.Claim{ID: id, Spec: spec, Host: am.Shared.Host, Worker: am.Session.Worker, State: state, At: now}
}

// push records c on the remote in place of the claim at lease ("": none may be there). It
// returns the new claim's commit and how the remote answered.
func push(am *ralph.AgentMode, c inbox.Claim, lease string) (string, ralph.PushAnswer, error) {
	commit, err := git.RecordCommit(am.Project, c.Message(), lease)
	if err != nil {
		return "", ralph.PushUnreachable, err
	}
	err = git.PushLease(am.Project, am.Shared.Remote, commit, inbox.ClaimRefPrefix+c.ID, lease)
	return commit, answerOf(err), err
}

func answerOf(err error) ralph.PushAnswer {
	switch {
	case err == nil:
		return ralph.PushAccepted
	case errors.Is(err, git.ErrLeaseRejected):
		return ralph.PushRejected
	}
	return ralph.PushUnreachable
}

// Renew makes the agent's claim on its current spec new again (now), on the lease of its
// last one; an agent without one (it released it when paused) creates it afresh.
func Renew(am *ralph.AgentMode, now time.Time) (ralph.ClaimStep, error) {
	commit, a, err := push(am, claimFor(am, am.SpecID, am.Spec, inbox.ClaimActive, now), am.Session.Claim)
	if a == ralph.PushAccepted {
		am.Session.Claim = commit
	}
	return ralph.AfterClaimPush(ralph.ClaimRenew, a), err
}

// Finished is how a spec ended, as its claim records it.
type Finished struct {
	Error    string // "" when it was done
	Landed   string // done: the commit the spec became on the remote
	LandedOn string // done: the branch it was pushed to
}

// Finish marks the agent's claim on its current spec done or failed.
func Finish(am *ralph.AgentMode, f Finished, now time.Time) (ralph.ClaimStep, error) {
	return finish(am, am.SpecID, am.Spec, am.Session.Claim, f, now)
}

func finish(am *ralph.AgentMode, id, spec, lease string, f Finished, now time.Time) (ralph.ClaimStep, error) {
	c := claimFor(am, id, spec, inbox.ClaimDone, now)
	c.Landed, c.LandedOn = f.Landed, f.LandedOn
	if f.Error != "" {
		c.State, c.Error = inbox.ClaimFailed, f.Error
	}
	commit, a, err := push(am, c, lease)
	if a == ralph.PushAccepted && id == am.SpecID {
		am.Session.Claim = commit
	}
	return ralph.AfterClaimPush(ralph.ClaimFinish, a), err
}

// Release deletes the agent's claim on its current spec, on its lease: the agent stops
// mid-spec and the spec is free for any agent. An agent holding none has nothing to do.
func Release(am *ralph.AgentMode) (ralph.ClaimStep, error) {
	if am.Session.Claim == "" {
		return ralph.ClaimGoOn, nil
	}
	err := git.PushLease(am.Project, am.Shared.Remote, "", inbox.ClaimRefPrefix+am.SpecID, am.Session.Claim)
	a := answerOf(err)
	if a == ralph.PushUnreachable {
		return ralph.AfterClaimPush(ralph.ClaimRelease, a), err
	}
	am.Session.Claim = "" // released, or someone else's already: nothing left to release
	return ralph.AfterClaimPush(ralph.ClaimRelease, a), nil
}

// take claims rec for the agent the way the pick says.
func take(am *ralph.AgentMode, rec inbox.Record, p inbox.Pick, now time.Time) (ralph.ClaimStep, error) {
	commit, a, err := push(am, claimFor(am, rec.ID, rec.Spec, inbox.ClaimActive, now), p.Lease)
	if a == ralph.PushAccepted {
		am.Session.Claim = commit
	}
	return ralph.AfterClaimPush(ralph.ClaimTake, a), err
}

// ReleaseClaim deletes the claim on spec id whoever holds it (the person's override, so no
// lease) and returns it as it was.
func ReleaseClaim(project, remote, id string) (inbox.Claim, error) {
	r, err := Look(project, remote)
	if err != nil {
		return inbox.Claim{}, err
	}
	c, ok := r.Claims[id]
	if !ok {
		return inbox.Claim{}, fmt.Errorf("%s has no claim on %s (%s%s): nothing to release", remote, id, inbox.ClaimRefPrefix, id)
	}
	if err := git.DeleteRemoteRef(project, remote, inbox.ClaimRefPrefix+id); err != nil {
		return c, err
	}
	return c, nil
}
