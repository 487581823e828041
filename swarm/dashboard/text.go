package dashboard

import (
	"fmt"
	"strings"
)

// Words and lines as the frame shows them. Durations and plurals come from ralph/words, as
// in the CLI's own tables, so that both say them alike; the dashboard still needs nothing of
// the CLI.

// dollars is a cost for the table: "$0.42", "-" when not known.
func dollars(c *float64) string {
	if c == nil {
		return "-"
	}
	return fmt.Sprintf("$%.2f", *c)
}

// errText is an error in one line: the last it said, without swarm's prefix.
func errText(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	return strings.TrimPrefix(lines[len(lines)-1], "swarm: error: ")
}
