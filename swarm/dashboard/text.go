package dashboard

import (
	"fmt"
	"strings"
	"time"
)

// Words and lines as the frame shows them. The CLI says durations, counts and errors the same
// way in its own tables; these are the dashboard's, so that it needs nothing of the CLI.

// ago says how long ago t was: "4s ago", "3m ago"; "-" when it is not known.
func ago(t, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return formatDuration(now.Sub(t)) + " ago"
}

// formatDuration says a duration the way people say it: 42s, 5m, 1h 3m, 2d 4h.
func formatDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int(d.Seconds())
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm", s/60)
	case s < 86400:
		if m := (s % 3600) / 60; m > 0 {
			return fmt.Sprintf("%dh %dm", s/3600, m)
		}
		return fmt.Sprintf("%dh", s/3600)
	}
	if h := (s % 86400) / 3600; h > 0 {
		return fmt.Sprintf("%dd %dh", s/86400, h)
	}
	return fmt.Sprintf("%dd", s/86400)
}

// dollars is a cost for the table: "$0.42", "-" when not known.
func dollars(c *float64) string {
	if c == nil {
		return "-"
	}
	return fmt.Sprintf("$%.2f", *c)
}

func pluralWord(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
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
