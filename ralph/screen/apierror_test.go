package screen

import (
	"testing"
)

func TestAPIErrorOnlyInTheAgentsOwnLastMessage(t *testing.T) {
	cases := map[string]bool{
		// The prompt's echo and a tool's output mention it; the agent's answer is fine.
		"❯ handle API Error: 529 responses\n● I will look at it.\n❯ ":                     false,
		"● Bash(cat log)\n  ⎿  API Error: 500 upstream\n● The log shows one failure.\n❯ ": false,
		// Quoted inside a message, not opening it.
		"● I fixed the handler for API Error: 500 responses.\n❯ ": false,
		// An error that was followed by a good answer is over.
		"● API Error: 529 overloaded\n❯ try again\n● Done.\n❯ ":         false,
		"● API Error: 529 overloaded\n✻ Baked for 0s\n────\n❯ \n────\n": true,
	}
	for screen, want := range cases {
		if _, got := APIError(Lines(screen)); got != want {
			t.Errorf("%q: %v, want %v", screen, got, want)
		}
	}
}
