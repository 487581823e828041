package ralph

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
)

// Which agent an event is from. The events file is a file like any other: any process of the
// user can append a line to it, or run `swarm agent-event` with it. An event acts on the loop
// (and a usage limit on every loop of the account) only when it is tied to the agent the
// loop started for the current iteration:
//
//   - every iteration's agent is given a token of its own, a random one, in its hooks (Claude
//     Code's settings file of the iteration) or its notify program (Codex's command line) -
//     never in its environment, which its tools, the commands it runs, inherit; the recorder
//     writes it into each event, and the loop keeps only its digest (TokenSum) in its state;
//   - an event that names a session names the one swarm gave the agent (Claude Code).
//
// That stops an event of an earlier iteration's agent (late, or replayed: its token is
// another), one that a loop's agent or its commands write for their own loop or another
// through `swarm agent-event` (their environment holds no token), and a line forged without
// reading the loop's files. It does not stop a process of the same user that reads the
// loop's private files (the settings file, the events file) or the agent's command line:
// processes of one user are not kept from each other by the system, and nothing swarm does
// within the user's account can make them so.

// TokenSum is the digest of an iteration's token that the loop state keeps.
func TokenSum(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:16])
}

// Untied says why an event is not tied to the iteration's agent; "" when it is. session is the
// session swarm gave the agent ("" when none), tokenSum the digest of its token ("" for an
// agent started before iterations had tokens, which is tied by its session alone).
func Untied(e AgentEvent, session, tokenSum string) string {
	if tokenSum != "" {
		if e.Token == "" {
			return "no token"
		}
		if subtle.ConstantTimeCompare([]byte(TokenSum(e.Token)), []byte(tokenSum)) != 1 {
			return "another agent's token"
		}
	}
	if session != "" && e.Session != "" && e.Session != session {
		return "another session"
	}
	return ""
}
