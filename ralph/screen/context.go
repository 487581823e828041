package screen

import (
	"regexp"
	"strconv"
	"strings"
)

// How full an agent's context window is, as its status line shows it. Claude Code says how much
// is left before it compacts ("Context left until auto-compact: 12%"), Codex how much is left
// ("38% context left"), other tools how much is used ("context: 62%").

var (
	contextLeft = []func() *regexp.Regexp{
		compiled(`(?i)context left until auto-compact:?\s*(\d{1,3})\s*%`),
		compiled(`(?i)(\d{1,3})\s*%\s*(?:of\s+)?context left`),
	}
	contextUsed = []func() *regexp.Regexp{
		compiled(`(?i)(\d{1,3})\s*%\s*(?:of\s+)?context used`),
		compiled(`(?i)\b(?:context|ctx)(?:\s+used)?\s*[:=]\s*(\d{1,3})\s*%`),
	}
)

// contextLines is how many of the last non-blank lines are read: the status line sits at the
// bottom, and the agent's own output higher up may quote anything.
const contextLines = 3

// ContextUsed returns the percentage of the context window in use as the bottom of the screen
// shows it; ok is false when it does not show.
func ContextUsed(lines []string) (pct int, ok bool) {
	seen := 0
	for i := len(lines) - 1; i >= 0 && seen < contextLines; i-- {
		line := lines[i]
		if strings.TrimSpace(line) == "" {
			continue
		}
		seen++
		if n, found := firstPercent(contextLeft, line); found {
			return 100 - n, true
		}
		if n, found := firstPercent(contextUsed, line); found {
			return n, true
		}
	}
	return 0, false
}

func firstPercent(res []func() *regexp.Regexp, line string) (int, bool) {
	for _, re := range res {
		if m := re().FindStringSubmatch(line); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n <= 100 {
				return n, true
			}
		}
	}
	return 0, false
}

// CompactionPattern is what Claude Code shows while it summarises a full context: the
// iteration's work is about to be squeezed, so a loop ends it and starts afresh instead.
var CompactionPattern = regexp.MustCompile(`Compacting conversation`)
