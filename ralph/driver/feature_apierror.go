package driver

import (
	"fmt"

	"github.com/swarm-dev/swarm/ralph/words"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/screen"
)

// apiErrors is the feature that ends an iteration whose agent gave up on its API and waits at
// the error (on screen, or as its own signal says). It reads each screen before the usage
// limits do, so that of the two seen at the same look the API error wins, as ever.
type apiErrors struct {
	drv services
	// text is the API error that ended the iteration, for its record.
	text string
}

func (ae *apiErrors) featureName() string { return "apierror" }

// screenLook ends the iteration whose agent shows an API error and waits at its prompt.
func (ae *apiErrors) screenLook(st *ralph.State, a agent, lines []string) bool {
	text, ok := screen.APIError(lines)
	if !ok || ae.drv.screenKind(lines) != screen.Ready {
		return false
	}
	ae.ends(st, a, text)
	return true
}

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
