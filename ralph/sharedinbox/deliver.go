package sharedinbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/git"
)

// Where a finished spec goes: its commit in the clone is pushed to the shared remote, onto
// --land-on's branch when it applies cleanly there, else as a branch of its own; then its
// claim is marked done with where it went.

// landAttempts is how often a landing is tried again when the branch moved between the fetch
// and the push.
const landAttempts = 2

// Deliver pushes the agent's finished spec (commit, in the clone) to the remote and marks its
// claim done. What the remote did not take (it was away) is kept in the session and
// delivered at the next FETCH.
func Deliver(am *ralph.AgentMode, commit string, now time.Time, say func(string, ...any)) {
	if full, err := git.ResolveCommit(am.Project, commit); err == nil {
		commit = full
	}
	u := ralph.UndeliveredSpec{ID: am.SpecID, Spec: am.Spec, Commit: commit, Claim: am.Session.Claim}
	if !deliver(am, &u, now, say) {
		am.Session.Undelivered = append(am.Session.Undelivered, u)
	}
}

// deliver pushes u and marks its claim done; it reports whether that is over (done, or
// no longer the agent's to do).
func deliver(am *ralph.AgentMode, u *ralph.UndeliveredSpec, now time.Time, say func(string, ...any)) bool {
	if u.LandedOn == "" {
		branch, landed, err := pushFinished(am, u, say)
		if err != nil {
			say("PUSH: %s %s could not be pushed to %s (%s); it stays committed here and is pushed at the next FETCH",
				u.ID, u.Spec, am.Shared.Remote, words.OneLine(err.Error()))
			return false
		}
		u.LandedOn, u.Landed = branch, landed
		say("PUSH: %s %s is %s on %s/%s", u.ID, u.Spec, ralph.ShortCommit(landed), am.Shared.Remote, branch)
	}
	switch step, err := finish(am, u.ID, u.Spec, u.Claim, Finished{Landed: u.Landed, LandedOn: u.LandedOn}, now); step {
	case ralph.ClaimLost:
		say("CLAIM: %s was taken over before it could be marked done; its commit is on %s/%s all the same",
			u.ID, am.Shared.Remote, u.LandedOn)
	case ralph.ClaimUnsent:
		say("CLAIM: could not mark %s done on %s (%s); tried again at the next FETCH", u.ID, am.Shared.Remote, words.OneLine(err.Error()))
		return false
	}
	return true
}

// deliverLeftovers delivers what earlier deliveries could not.
func deliverLeftovers(am *ralph.AgentMode, now time.Time, say func(string, ...any)) {
	var left []ralph.UndeliveredSpec
	for _, u := range am.Session.Undelivered {
		if !deliver(am, &u, now, say) {
			left = append(left, u)
		}
	}
	am.Session.Undelivered = left
}

// pushFinished pushes a finished spec's commit: landed on --land-on's branch when it applies
// cleanly there, else (or without --land-on) as the spec's own branch, said.
func pushFinished(am *ralph.AgentMode, u *ralph.UndeliveredSpec, say func(string, ...any)) (branch, landed string, err error) {
	if on := am.Shared.LandOn; on != "" {
		landed, why := land(am, u.Commit, on)
		if why == "" {
			return on, landed, nil
		}
		say("LAND: %s %s not landed on %s/%s: %s; pushed as %s instead", u.ID, u.Spec, am.Shared.Remote, on, why, ralph.SpecBranch(u.ID))
	}
	branch = ralph.SpecBranch(u.ID)
	// The spec's branch is its claim holder's alone: whatever an earlier run left there goes.
	return branch, u.Commit, git.ForcePush(am.Project, am.Shared.Remote, u.Commit, "refs/heads/"+branch)
}

// land replays commit on the remote's branch and pushes it there with a lease on the head it
// was replayed on; why says what kept it from landing.
func land(am *ralph.AgentMode, commit, branch string) (landed, why string) {
	remote, ref := am.Shared.Remote, "refs/heads/"+branch
	for attempt := 0; attempt < landAttempts; attempt++ {
		base, err := git.FetchRef(context.Background(), am.Project, remote, ref)
		if err != nil {
			return "", "cannot fetch it: " + words.OneLine(err.Error())
		}
		replayed, err := git.ReplayOnto(am.Project, commit, base)
		if errors.Is(err, git.ErrConflict) {
			return "", "it does not apply cleanly (" + words.OneLine(err.Error()) + ")"
		}
		if err != nil {
			return "", "cannot replay it there: " + words.OneLine(err.Error())
		}
		err = git.PushLease(am.Project, remote, replayed, ref, base)
		if err == nil {
			return replayed, ""
		}
		if !errors.Is(err, git.ErrLeaseRejected) {
			return "", "the push failed: " + words.OneLine(err.Error())
		}
	}
	return "", fmt.Sprintf("the branch moved under %d pushes in a row", landAttempts)
}
