package driver

import (
	"fmt"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/screen"
)

// apiErrorServices are what the API errors feature asks of the driver: the one slice of its
// services (services.go) it uses.
type apiErrorServices interface {
	clock() Clock
	logEvent(kind, text string)
	endIteration(st *ralph.State, a agent, kind ralph.Ending)
	capture(a agent, history int) ([]string, error)
	screenKind(lines []string) screen.Kind
}

// apiErrors is the feature that ends an iteration whose agent gave up on its API and waits at
// the error (on screen, or as its own signal says). It reads each screen before the usage
// limits do, so that of the two seen at the same look the API error wins, as ever.
//
// An agent that names its errors itself (Claude Code's StopFailure: a rate limit, which parks
// the loop, or another error, which fails the iteration) draws the error before its hook
// reports it, and on a loaded machine the hook can take seconds: an error seen on screen
// waits for the agent's own word up to ownWordWait, then ends the iteration as the screen
// says. Ended at once, the agent would take its hook (and the user's own) with it.
type apiErrors struct {
	drv apiErrorServices
	// text is the API error that ended the iteration, for its record.
	text string
	// ownWord reports whether the iteration's agent names its API errors itself; nil: never.
	ownWord func(st *ralph.State) bool
	// seen is when an API error was first seen on screen while the agent's own word on it is
	// awaited; zero when none is.
	seen time.Time
}

// ownWordWait is how long an API error on screen waits for the agent's own signal: the time
// limit of swarm's hooks.
const ownWordWait = ralph.HookTimeout * time.Second

func (ae *apiErrors) featureName() string { return "apierror" }

// screenLook ends the iteration whose agent shows an API error and waits at its prompt, or
// begins waiting for the agent's own word on it.
func (ae *apiErrors) screenLook(st *ralph.State, a agent, lines []string) bool {
	text, ok := screen.APIError(lines)
	if !ok || ae.drv.screenKind(lines) != screen.Ready {
		ae.seen = time.Time{} // gone: the agent went on
		return false
	}
	if ae.seen.IsZero() && ae.ownWord != nil && ae.ownWord(st) {
		ae.seen = ae.drv.clock().Now()
	}
	if !ae.seen.IsZero() && ae.drv.clock().Now().Before(ae.seen.Add(ownWordWait)) {
		return false
	}
	ae.ends(st, a, text)
	return true
}

// agentLook ends the iteration whose agent did not name the error on its screen in time, if
// it still shows it (a followed pane's still screen is not captured again by itself).
func (ae *apiErrors) agentLook(st *ralph.State, a agent, w *screenWatch) bool {
	if ae.seen.IsZero() || ae.drv.clock().Now().Before(ae.seen.Add(ownWordWait)) {
		return false
	}
	lines, err := ae.drv.capture(a, 0)
	if err != nil {
		return false
	}
	return ae.screenLook(st, a, lines)
}

// lookDue wakes the watch when the wait for the agent's own word is over.
func (ae *apiErrors) lookDue(st *ralph.State) (time.Time, bool) {
	return ae.seen.Add(ownWordWait), !ae.seen.IsZero()
}

// agentStarting forgets an error seen on the last agent's screen.
func (ae *apiErrors) agentStarting() { ae.seen = time.Time{} }

// iterationEnding forgets the error seen: its iteration ended.
func (ae *apiErrors) iterationEnding(st *ralph.State) { ae.seen = time.Time{} }

// ends ends the iteration at the API error text names.
func (ae *apiErrors) ends(st *ralph.State, a agent, text string) {
	ae.text = text
	ae.drv.logEvent("API_ERROR", fmt.Sprintf("iteration %d %s", st.CurrentIteration, words.OneLine(text)))
	ae.drv.endIteration(st, a, ralph.EndAPIError)
}

// iterationEnded names the API error that ended the iteration in its record.
func (ae *apiErrors) iterationEnded(e *iterationEnd) {
	if e.kind == ralph.EndAPIError {
		e.rec.Error = ae.text
	}
}
