package screen

import (
	"regexp"
	"strings"
)

// DoneMatcher counts done-pattern matches in agent output while ignoring the echo of the
// prompt swarm typed: the prompt usually names the done marker ("print ALL_DONE when
// finished"), and agents redraw it on screen, so a plain search would stop every loop at once.
type DoneMatcher struct {
	re     *regexp.Regexp
	prompt string // whitespace-collapsed prompt text
	// need is how much of the prompt's own text, the marker left out, a run of lines must
	// hold to be its echo: a marker printed on its own line holds none of it, however large
	// a part of a short prompt the marker is.
	need int
}

// NewDoneMatcher returns a matcher for re that ignores the echo of prompt.
func NewDoneMatcher(re *regexp.Regexp, prompt string) *DoneMatcher {
	m := &DoneMatcher{re: re, prompt: collapse(prompt)}
	m.need = max(1, len(m.withoutMarker(m.prompt))/2)
	return m
}

// withoutMarker is s with the done pattern's matches taken out and white space collapsed. A
// prompt that is nothing but the marker keeps it, or its echo would count as done.
func (m *DoneMatcher) withoutMarker(s string) string {
	if m.re == nil {
		return s
	}
	if out := collapse(m.re.ReplaceAllString(m.prompt, " ")); out == "" {
		return s
	}
	return collapse(m.re.ReplaceAllString(s, " "))
}

// collapse folds all runs of white space (NBSP included) into one space and trims.
func collapse(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\u00a0", " ")), " ")
}

// echoText normalises a screen line the way an input echo shows it: without the prompt glyph
// agents put in front of the user's message (Codex marks a queued message with ↳, opencode
// draws a ┃ bar before it, Gemini CLI a * in its --yolo mode).
func echoText(line string) string {
	s := collapse(line)
	for _, p := range []string{"❯", "›", ">", "*", "│", "┃", "↳"} {
		s = strings.TrimSpace(strings.TrimPrefix(s, p))
	}
	s = strings.TrimSpace(strings.TrimSuffix(s, "│"))
	return s
}

// Count returns how many matches the screen lines hold outside the prompt echo.
func (m *DoneMatcher) Count(lines []string) int {
	if m == nil || m.re == nil {
		return 0
	}
	lines = columns(lines)
	var hits []int
	for _, l := range lines {
		hits = append(hits, len(m.re.FindAllStringIndex(l, -1)))
	}
	echo := m.echoLines(lines, hits)
	n := 0
	for i, k := range hits {
		if k > 0 && !echo[i] {
			n += k
		}
	}
	return n
}

// columnGap is a run of blanks wide enough to part two columns of a screen: opencode puts
// its session sidebar beside the transcript in a wide terminal, so the prompt's echo and the
// sidebar's text share screen lines.
var columnGap = compiled(`[ \x{a0}]{8,}`)

// columns splits every line at its column gaps, so that each column's text is read on its own.
func columns(lines []string) []string {
	var out []string
	for _, l := range lines {
		l = strings.TrimRight(l, " \u00a0")
		if !strings.Contains(l, "        ") && !strings.ContainsRune(l, '\u00a0') {
			out = append(out, l) // no gap possible; the split's regexp is the costly part of a look
			continue
		}
		out = append(out, columnGap().Split(l, -1)...)
	}
	return out
}

// echoLines marks the lines that belong to an echo of the prompt: runs of consecutive lines
// whose joined text occurs, in that order, in the prompt and covers a good part of it. Output
// that merely repeats a phrase of the prompt (the marker itself, say), even right below the
// echo, does not continue the prompt's text and so stays outside the run. A run at the top of
// the capture may be the end of an echo whose start is above it (scrolled out of the lines
// captured): it counts when it is the end of the prompt, however little of it is left.
func (m *DoneMatcher) echoLines(lines []string, hits []int) map[int]bool {
	any := false
	for _, k := range hits {
		any = any || k > 0
	}
	if !any || m.prompt == "" {
		return nil
	}
	echo := map[int]bool{}
	var run []int
	runText := ""
	top := -1 // the first line with text
	closeRun := func() {
		cut := len(run) > 0 && run[0] == top && strings.HasSuffix(m.prompt, runText)
		if cut || len(m.withoutMarker(runText)) >= m.need {
			for _, i := range run {
				echo[i] = true
			}
		}
		run, runText = nil, ""
	}
	for i, l := range lines {
		t := echoText(l)
		if t == "" {
			continue
		}
		if top < 0 {
			top = i
		}
		if runText != "" && strings.Contains(m.prompt, runText+" "+t) {
			run = append(run, i)
			runText += " " + t
			continue
		}
		closeRun()
		if strings.Contains(m.prompt, t) {
			run, runText = []int{i}, t
		}
	}
	closeRun()
	return echo
}
