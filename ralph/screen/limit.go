package screen

import (
	"strconv"
	"strings"
	"time"
	// Reset times name their zone (Europe/Berlin): the zone database must be there even on a
	// machine without one.
	_ "time/tzdata"
)

// An agent that ran into its plan's usage limit says so and when it resets. Claude Code:
// "⎿  You've hit your session limit · resets 9:41pm (UTC)" (or "resets Nov 27, 9:32pm
// (Europe/Berlin)") right under the user's message, then offers a menu; older versions said
// "Claude AI usage limit reached|<unix time>". Codex: "■ You’ve hit your usage limit. ... try
// again at 3:05 PM." Only the agent's own reply counts: a ⎿ line under the echo of the user's
// message (under a tool call it is the tool's output, a file being shown, say) or a line that
// starts with the agent's bullet, and it must be the last thing the agent said. In 2.1.332
// Claude Code says it in its footer, under the input box, and waits by itself:
// "⚠ Usage limit reached · limit resets 1:03pm" (in the agent's local time, no zone named),
// "Continuing shortly · Esc to cancel".

var (
	limitLineRe  = compiled(`^\s{0,2}(?:⎿|` + bulletClass + `)[\s\x{a0}]+((?:You've|You’ve) hit your .*|Claude AI usage limit reached.*|.*\blimit reached\b.*(?:resets|reset at).*)$`)
	replyStartRe = compiled(`^\s{0,2}(?:❯|›|>|⎿|` + bulletClass + `)(?:[\s\x{a0}]|$)`)
	// A menu's selected option ("❯ 1. Stop and wait for limit to reset") is no reply.
	selectedOptionRe = compiled(`^\s*(?:❯|›|>)[\s\x{a0}]+\d+\.\s`)
	footerLimitRe    = compiled(`^\s{0,4}⚠[\s\x{a0}]+((?:Usage|Session|Weekly) limit reached\b.*)$`)
)

// footerLimit finds the limit notice in the footer under Claude Code's input box: below the
// box's closing rule, so a reply that quotes it never counts.
func footerLimit(lines []string) (string, bool) {
	for i := len(lines) - 1; i >= 0 && i >= len(lines)-footerLines; i-- {
		if isRule(lines[i]) {
			return "", false
		}
		if m := footerLimitRe().FindStringSubmatch(strings.TrimRightFunc(lines[i], isBlankRune)); m != nil {
			return strings.TrimSpace(m[1]), true
		}
	}
	return "", false
}

// footerLines is how far up from the bottom Claude Code's footer may reach.
const footerLines = 6

// UsageLimit returns the agent's usage-limit message when that is the last thing it said.
func UsageLimit(lines []string) (string, bool) {
	if text, ok := footerLimit(lines); ok {
		return text, true
	}
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimRightFunc(lines[i], isBlankRune)
		if !replyStartRe().MatchString(l) || isInputLine(l) || selectedOptionRe().MatchString(l) {
			continue
		}
		m := limitLineRe().FindStringSubmatch(l)
		if m == nil {
			return "", false
		}
		if strings.HasPrefix(strings.TrimSpace(l), "⎿") && !underUserMessage(lines[:i]) {
			return "", false
		}
		return strings.TrimSpace(m[1]), true
	}
	return "", false
}

// isInputLine is the agent's empty input prompt (or its placeholder), which sits below the
// last reply.
func isInputLine(l string) bool {
	t := strings.TrimSpace(strings.ReplaceAll(l, "\u00a0", " "))
	return t == "❯" || t == "›" || t == ">" || strings.HasPrefix(t, "› Ask Codex") || strings.HasPrefix(t, "❯ /")
}

// underUserMessage reports whether the line after above answers the user's message (its echo
// starts with ❯ or ›) rather than a tool call (● or ⏺).
func underUserMessage(above []string) bool {
	for i := len(above) - 1; i >= 0; i-- {
		t := strings.TrimSpace(above[i])
		switch {
		case strings.HasPrefix(t, "❯") || strings.HasPrefix(t, "›") || strings.HasPrefix(t, ">"):
			return true
		case strings.HasPrefix(t, "⎿") || bulletRe().MatchString(t):
			return false
		}
	}
	return false
}

var (
	legacyResetRe = compiled(`usage limit reached\|(\d{9,11})`)
	claudeResetRe = compiled(`resets (?:at )?(?:([A-Z][a-z]{2}) (\d{1,2}), )?(\d{1,2})(?::(\d\d))?\s*([ap]m)(?:\s*\(([^)]+)\))?`)
	codexAtRe     = compiled(`(?i)try again at (\d{1,2}):(\d\d)\s*([ap]m)`)
	codexInRe     = compiled(`(?i)try again in ((?:\d+\s*(?:days?|hours?|minutes?|seconds?)[\s,]*(?:and\s+)?)+)`)
	codexPartRe   = compiled(`(?i)(\d+)\s*(day|hour|minute|second)`)
)

// LimitReset reads when a usage limit resets from its message; ok is false when it does not
// say, or not in a form known here. A time without a zone is in now's location, which the
// caller sets to the agent's. A clock time is shown to the minute, rounded down, so the
// reset is taken as the end of that minute; without a date it is the next such time.
func LimitReset(text string, now time.Time) (time.Time, bool) {
	if m := legacyResetRe().FindStringSubmatch(text); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return time.Unix(n, 0), true
	}
	if m := claudeResetRe().FindStringSubmatch(text); m != nil {
		loc := now.Location()
		if m[6] != "" {
			var err error
			if loc, err = time.LoadLocation(m[6]); err != nil {
				return time.Time{}, false
			}
		}
		return clockTime(now.In(loc), m[1], m[2], m[3], m[4], m[5])
	}
	if m := codexAtRe().FindStringSubmatch(text); m != nil {
		return clockTime(now, "", "", m[1], m[2], strings.ToLower(m[3]))
	}
	if m := codexInRe().FindStringSubmatch(text); m != nil {
		var d time.Duration
		unit := map[string]time.Duration{"day": 24 * time.Hour, "hour": time.Hour, "minute": time.Minute, "second": time.Second}
		for _, p := range codexPartRe().FindAllStringSubmatch(m[1], -1) {
			n, _ := strconv.Atoi(p[1])
			d += time.Duration(n) * unit[strings.ToLower(p[2])]
		}
		return now.Add(d), d > 0
	}
	return time.Time{}, false
}

// clockTime is h:mm am/pm on the given month and day (or, without one, the next such time
// after now), in now's location.
func clockTime(now time.Time, month, day, hour, minute, ampm string) (time.Time, bool) {
	h, _ := strconv.Atoi(hour)
	m, _ := strconv.Atoi(minute)
	if h < 1 || h > 12 || m > 59 {
		return time.Time{}, false
	}
	h %= 12
	if ampm == "pm" {
		h += 12
	}
	if month == "" {
		t := time.Date(now.Year(), now.Month(), now.Day(), h, m, 0, 0, now.Location()).Add(time.Minute)
		switch {
		case t.After(now):
		case now.Sub(t) < time.Hour:
			// Just past: it has reset by now.
			t = now
		default:
			t = t.AddDate(0, 0, 1)
		}
		return t, true
	}
	mon, err := time.Parse("Jan", month)
	if err != nil {
		return time.Time{}, false
	}
	d, _ := strconv.Atoi(day)
	t := time.Date(now.Year(), mon.Month(), d, h, m, 0, 0, now.Location()).Add(time.Minute)
	// A date well in the past is next year's (a reset in January seen in December).
	if t.Before(now.AddDate(0, -6, 0)) {
		t = t.AddDate(1, 0, 0)
	}
	return t, true
}
