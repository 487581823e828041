package inbox

import (
	"fmt"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"
)

// A shared inbox is one queue worked through by agents in several clones of a project. Who
// works on which spec is recorded on the project's shared git remote, one ref per spec:
// refs/swarm/claims/<id>, a commit whose message is a Claim. Creating that ref where none is
// (a push with an empty lease) is taking the spec; git's compare-and-swap on the remote's ref
// makes sure only one agent wins. This file holds the claim's format; shared.go the
// decisions made on claims.

// ClaimRefPrefix is where the claims live on the remote: ClaimRefPrefix + id.
const ClaimRefPrefix = "refs/swarm/claims/"

// The states of a claim.
const (
	ClaimActive = "active" // an agent works on the spec, and renews the claim as it goes
	ClaimDone   = "done"   // the spec was completed; Landed and LandedOn say where it went
	ClaimFailed = "failed" // the spec failed; Error says why
	// ClaimUnreadable is a ref under ClaimRefPrefix whose message is no claim, as readers
	// show it (Error says what is wrong): it holds its spec until it is released.
	ClaimUnreadable = "unreadable"
)

// Claim is one spec's claim on the shared remote.
type Claim struct {
	ID       string    `json:"id"`
	Spec     string    `json:"spec,omitempty"`
	Host     string    `json:"host"`
	Worker   string    `json:"worker"`
	State    string    `json:"state"`
	At       time.Time `json:"at"`                  // when it was made or last renewed
	Landed   string    `json:"landed,omitempty"`    // done: the commit the spec became
	LandedOn string    `json:"landed_on,omitempty"` // done: the branch that commit was pushed to
	Error    string    `json:"error,omitempty"`     // failed: why
	Commit   string    `json:"commit"`              // the claim's own commit on the remote: its lease
}

// The claim message's fields, as trailers under a subject line.
const (
	claimKeyID       = "Spec-Id"
	claimKeySpec     = "Spec"
	claimKeyHost     = "Host"
	claimKeyWorker   = "Worker"
	claimKeyState    = "State"
	claimKeyTime     = "Time"
	claimKeyLanded   = "Landed"
	claimKeyLandedOn = "Landed-On"
	claimKeyError    = "Error"
)

// Message is the claim as its commit's message records it:
//
//	swarm claim q-a1b2: active
//
//	Spec-Id: q-a1b2
//	Spec: feature-x.md
//	Host: build-1
//	Worker: builder
//	State: active
//	Time: 2026-11-25T10:00:00Z
func (c Claim) Message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "swarm claim %s: %s\n\n", c.ID, c.State)
	field := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s: %s\n", k, words.OneLine(v))
		}
	}
	field(claimKeyID, c.ID)
	field(claimKeySpec, c.Spec)
	field(claimKeyHost, c.Host)
	field(claimKeyWorker, c.Worker)
	field(claimKeyState, c.State)
	field(claimKeyTime, Now(c.At))
	field(claimKeyLanded, c.Landed)
	field(claimKeyLandedOn, c.LandedOn)
	field(claimKeyError, c.Error)
	return b.String()
}

// ParseClaim reads the claim of spec id from its commit's message. A message that is no claim
// (a ref someone made by other means) is an error: such a ref still holds its spec, since
// nobody can tell whose it is, until it is released.
func ParseClaim(id, commit, message string) (Claim, error) {
	c := Claim{ID: id, Commit: commit}
	fields := map[string]string{}
	for _, line := range strings.Split(message, "\n") {
		if k, v, ok := strings.Cut(line, ": "); ok && !strings.Contains(k, " ") {
			fields[k] = strings.TrimSpace(v)
		}
	}
	c.Spec, c.Host, c.Worker, c.State = fields[claimKeySpec], fields[claimKeyHost], fields[claimKeyWorker], fields[claimKeyState]
	c.Landed, c.LandedOn, c.Error = fields[claimKeyLanded], fields[claimKeyLandedOn], fields[claimKeyError]
	if got := fields[claimKeyID]; got != id {
		return c, fmt.Errorf("claim %s%s: its message names spec %q", ClaimRefPrefix, id, got)
	}
	if c.State != ClaimActive && c.State != ClaimDone && c.State != ClaimFailed {
		return c, fmt.Errorf("claim %s%s: state %q is not active, done or failed", ClaimRefPrefix, id, c.State)
	}
	at, err := time.Parse(time.RFC3339, fields[claimKeyTime])
	if err != nil {
		return c, fmt.Errorf("claim %s%s: time %q is not RFC 3339", ClaimRefPrefix, id, fields[claimKeyTime])
	}
	c.At = at
	return c, nil
}

// Holder names who holds the claim: "host/worker".
func (c Claim) Holder() string {
	host, worker := c.Host, c.Worker
	if host == "" {
		host = "?"
	}
	if worker == "" {
		worker = "?"
	}
	return host + "/" + worker
}

// Expired reports an active claim not renewed for longer than timeout: its holder is taken
// to be gone, and another agent may take the spec over.
func (c Claim) Expired(now time.Time, timeout time.Duration) bool {
	return c.State == ClaimActive && timeout > 0 && now.Sub(c.At) > timeout
}
