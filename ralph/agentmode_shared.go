package ralph

import (
	"errors"
	"fmt"
	"time"

	"github.com/swarm-dev/swarm/ralph/inbox"
)

// Agent mode across clones (swarm agent --shared): agents in several clones of a project,
// on one host or many, work through one queue, each spec done once, with no server but the
// project's shared git remote. The queue is the remote's committed ralph/inbox.jsonl merged
// into each clone's own; who works on a spec is its claim ref on the remote (ralph/inbox's
// claim.go), which an agent takes, renews, marks done or failed and releases by
// compare-and-swap pushes. ralph/sharedinbox carries the pushes out; this file holds what the
// agent makes of their answers.

// SharedInbox is the --shared settings of an agent.
type SharedInbox struct {
	Remote       string `json:"remote"`            // the shared remote's name in the clone
	ClaimTimeout int64  `json:"claim_timeout_s"`   // seconds an active claim lasts unrenewed
	LandOn       string `json:"land_on,omitempty"` // the branch finished specs land on, when they apply cleanly
	Host         string `json:"host"`              // the host name the claims record
}

// Timeout is how long an active claim lasts without being renewed.
func (s SharedInbox) Timeout() time.Duration { return time.Duration(s.ClaimTimeout) * time.Second }

// DefaultClaimTimeout is how long an active claim lasts unrenewed unless --claim-timeout says.
const DefaultClaimTimeout = time.Hour

// SpecBranch is where a finished spec's commit is pushed when it does not land: a branch of
// its own on the shared remote.
func SpecBranch(id string) string { return "swarm/spec/" + id }

// ReasonClaimLost is the exit reason of a spec's loop stopped because its claim was taken
// over (it expired, or was released): the spec is someone else's now.
const ReasonClaimLost = "claim_lost"

// AgentRemoteUnreachable: a FETCH could not read the shared remote; no spec can be taken
// safely without it.
const AgentRemoteUnreachable = "remote_unreachable"

// ErrRemoteUnreachable is the cause of a FETCH that could not read the shared remote.
var ErrRemoteUnreachable = errors.New("the shared remote cannot be reached")

// UndeliveredSpec is a spec committed in the clone whose commit, or its done claim, did not
// reach the shared remote (it was away): the next FETCH delivers it.
type UndeliveredSpec struct {
	ID       string `json:"id"`
	Spec     string `json:"spec"`
	Commit   string `json:"commit"`              // in the clone
	Claim    string `json:"claim"`               // the agent's claim on it: the lease of its done claim
	LandedOn string `json:"landed_on,omitempty"` // once pushed: the branch
	Landed   string `json:"landed,omitempty"`    // once pushed: the commit there
}

// ClaimOp is a change an agent makes to its claim.
type ClaimOp int

// The changes to a claim.
const (
	ClaimTake    ClaimOp = iota // FETCH: create it, or take an expired one over
	ClaimRenew                  // at each iteration's start, and before the spec's commit
	ClaimFinish                 // done, or failed
	ClaimRelease                // the agent stops mid-spec: the spec is free again
)

// PushAnswer is how the remote answered a claim's push.
type PushAnswer int

// The remote's answers.
const (
	PushAccepted    PushAnswer = iota
	PushRejected               // the claim was not where the lease expected it: someone else changed it
	PushUnreachable            // the push did not get through
)

// ClaimStep is what follows a claim's push.
type ClaimStep int

// The steps after a claim's push.
const (
	ClaimGoOn   ClaimStep = iota // it went through: carry on
	ClaimSkip                    // FETCH: another agent was first; try the next spec
	ClaimLost                    // the spec is someone else's now: stop it and set its work aside
	ClaimStop                    // FETCH without the remote: no spec can be taken; the agent stops
	ClaimUnsent                  // the change did not reach the remote: said, and the agent goes on
)

// AfterClaimPush decides what follows a push of op that the remote answered with a.
func AfterClaimPush(op ClaimOp, a PushAnswer) ClaimStep {
	switch {
	case a == PushAccepted:
		return ClaimGoOn
	case op == ClaimTake && a == PushRejected:
		return ClaimSkip
	case op == ClaimTake:
		return ClaimStop
	case a == PushRejected && (op == ClaimRenew || op == ClaimFinish):
		return ClaimLost
	}
	// A release refused is a claim someone else holds already; one that did not get through
	// expires.
	return ClaimUnsent
}

// SpecLost forgets a spec whose claim was taken over: it counts as failed in the session but
// not in the failures in a row, which are the agent's own.
func (am *AgentMode) SpecLost() {
	am.Session.SpecsFailed++
	am.Session.Claim = ""
	am.ClearSpec()
}

// LostWhy is a lost spec's error in the inbox: "claimed by build-2/builder (active)".
func LostWhy(c *inbox.Claim) string {
	if c == nil {
		return "its claim was taken over or released"
	}
	return fmt.Sprintf("claimed by %s (%s)", c.Holder(), c.State)
}

// SharedEmptyMessage is the agent log's stop line of a shared agent that found nothing to
// take.
func SharedEmptyMessage(remote string) string {
	return fmt.Sprintf("Inbox empty (nothing left to claim on %s). Agent stopping.", remote)
}

// ClaimTakenOver ends a spec's loop before its next iteration: a renewal of its claim was
// refused, so another agent holds the spec now.
func ClaimTakenOver(id, remote string) Decision {
	var d Decision
	msg := fmt.Sprintf("the claim on %s was taken over or released on %s: this agent stops working on it", id, remote)
	d.Say("%s", msg)
	d.Stop(StatusFailed, ReasonClaimLost, msg)
	return d
}

// SessionToResume reports whether the session outlives an agent stopping for reason: its
// queue could not be read (the next agent goes on where it stopped), or it holds specs
// committed here that the shared remote does not have yet.
func (am *AgentMode) SessionToResume(reason string) bool {
	return reason == AgentInboxCorrupt || reason == AgentRemoteUnreachable || len(am.Session.Undelivered) > 0
}
