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

func lastN(lines []string, n int) []string {
	if n > 0 && len(lines) > n {
		return lines[len(lines)-n:]
	}
	return lines
}

// trimBlankTail drops the blank lines at the end of a screen (a terminal's empty rows).
func trimBlankTail(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(strings.ReplaceAll(lines[len(lines)-1], "\u00a0", " ")) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// errText is an error in one line: the last it said, without swarm's prefix.
func errText(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	return strings.TrimPrefix(lines[len(lines)-1], "swarm: error: ")
}
