package ralph

import (
	"fmt"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"
)

// An iteration that cannot start because the loop's tmux server does not answer (stopped with
// SIGSTOP, wedged): the server may well come back, and the worker's pane with it, so the loop
// waits for it instead of failing. The outage is escalated once; the loop says once that the
// start waits, tries again every SilentStartRetry, and fails only once the server has been
// silent for TmuxOutageLimit.

// TmuxOutageLimit is how long a loop waits for a silent tmux server to start an iteration
// before it fails: long enough for a stopped server to be found and resumed by a person.
const TmuxOutageLimit = 30 * time.Minute

// SilentStartRetry is how often a loop waiting for its silent tmux server asks it again (each
// question itself waits up to the tmux call's deadline).
const SilentStartRetry = 2 * time.Second

// ReasonTmuxSilent is the exit reason of a loop that gave up waiting for its tmux server.
const ReasonTmuxSilent = "tmux_not_answering"

// SilentStartFacts is what a loop knows when its tmux server did not answer as iteration
// Iteration was to start.
type SilentStartFacts struct {
	Iteration int
	// Server is the silence in the tmux client's words: "tmux server (socket s) is not
	// answering".
	Server string
	// Silent is how long the server has not answered, as the loop saw it.
	Silent time.Duration
	// Escalated: this outage was escalated already (while the agent ran, or at an earlier
	// look); Told: the loop has said that this iteration's start waits.
	Escalated bool
	Told      bool
}

// SilentStart is what the loop does about it.
type SilentStart struct {
	// Decision holds what to say and log; when it ends the loop, the loop gave up.
	Decision
	// Escalate, when not empty, escalates the outage (log, counters, webhook) in these words.
	Escalate string
	// Retry is when to ask the server again; 0 once the loop gave up.
	Retry time.Duration
}

// StartWhileSilent decides on an iteration that cannot start while the tmux server is silent:
// wait for the server (escalated once an outage, said once an iteration), or give up at limit
// (0: TmuxOutageLimit).
func StartWhileSilent(f SilentStartFacts, limit time.Duration) SilentStart {
	if limit <= 0 {
		limit = TmuxOutageLimit
	}
	var s SilentStart
	if f.Silent >= limit {
		msg := fmt.Sprintf("%s for %s: cannot start iteration %d, stopping loop", f.Server, words.Short(limit), f.Iteration)
		s.supervisionSay("%s", msg)
		s.Stop(StatusFailed, ReasonTmuxSilent, msg)
		s.Decision.Escalate = msg
		return s
	}
	s.Retry = SilentStartRetry
	waits := fmt.Sprintf("iteration %d waits for the tmux server to start (at most %s, then the loop fails)", f.Iteration, words.Short(limit))
	switch {
	case !f.Escalated:
		s.Escalate = f.Server + " — " + waits
	case !f.Told:
		s.supervisionSay("%s", waits)
	}
	return s
}
