package screen

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/acarl005/stripansi"
)

// What an agent said last, as a person wants it in a notification or a failure's record: the
// screen above the agent's input area. The input box (or composer) and what the agent draws
// under it (its footer, mode and status lines) say nothing about what happened; with them,
// the last lines of a screen are mostly frame.

// hintRe matches the hint lines agents draw right above or beside their input area: Claude
// Code's "? for shortcuts", its mode and effort lines and its tmux advice, Gemini CLI's
// "Shift+Tab to accept edits" and "YOLO Ctrl+Y", opencode's "tab agents  ctrl+p commands",
// Codex's "⏎ send".
var hintRe = compiled(`\? for shortcuts|⏵⏵|\(shift\+tab to cycle\)|· /effort|Shift\+Tab to accept|YOLO Ctrl\+Y|tmux focus-events off|ctrl\+p commands|⏎ send`)

// AboveInput is the part of a screen (as Lines makes it) above the agent's input area, with
// the blank and hint lines right above that area left out too. A screen without an input
// area it knows comes back whole.
func AboveInput(lines []string) []string {
	out := lines[:inputTop(lines)]
	for len(out) > 0 {
		last := out[len(out)-1]
		if trimBlank(last) != "" && !hintRe().MatchString(last) {
			break
		}
		out = out[:len(out)-1]
	}
	return out
}

// inputTop is the first line of the agent's input area, len(lines) when there is none.
func inputTop(lines []string) int {
	if box, ok := findCopilotInput(lines); ok {
		return copilotTop(lines, box)
	}
	if box, ok := findClaudeBox(lines); ok {
		return box.top
	}
	if end, ok := findOpencodeBox(lines); ok {
		return opencodeBoxTop(lines, end)
	}
	if comp, ok := findCodexComposer(lines, bannerAgent(lines)); ok {
		return comp
	}
	if top, _, ok := findQwenInput(lines); ok {
		return top
	}
	if p, ok := promptLine(lines); ok {
		return framedFrom(lines, p)
	}
	return len(lines)
}

// opencodeBoxTop is the first line of the opencode box whose bottom edge is on line end: the
// run of ┃ lines above it.
func opencodeBoxTop(lines []string, end int) int {
	top := end
	for top > 0 && strings.HasPrefix(trimBlank(lines[top-1]), "┃") {
		top--
	}
	return top
}

// promptLine finds an input prompt among the last lines of a screen of an agent that has no
// input box of its own that swarm knows (Gemini CLI, older Claude Code, aider, the REPLs): a
// prompt in a box, or a bare prompt glyph with only a footer below it, as tuiReady reads them.
func promptLine(lines []string) (int, bool) {
	seen := 0
	for i := len(lines) - 1; i >= 0 && seen < genericBusyWindow; i-- {
		l := trimBlank(lines[i])
		if l == "" {
			continue
		}
		seen++
		m := boxPromptRe().FindStringSubmatch(l)
		if m != nil && (m[2] != "" || m[1] == ">" && strings.ContainsAny(l, "│┃║")) {
			return i, true
		}
		if glyphPromptRe().MatchString(l) && footerOnly(nonBlankOf(lines[i+1:])) && seen <= 3 {
			return i, true
		}
	}
	return -1, false
}

// framedFrom is where the input area whose prompt is on line p begins: the rule or the box's
// top edge above the prompt, over any hint lines between them; p itself when it has no frame.
func framedFrom(lines []string, p int) int {
	for i := p - 1; i >= 0 && i >= p-3; i-- {
		l := trimBlank(lines[i])
		switch {
		case isRule(l) || strings.HasPrefix(l, "╭") && strings.HasSuffix(l, "╮"):
			return i
		case l != "" && !hintRe().MatchString(l):
			return p
		}
	}
	return p
}

func nonBlankOf(lines []string) []string {
	var out []string
	for _, l := range lines {
		if trimBlank(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// Printable is a line of an agent's screen made safe to show anywhere (a terminal, a log line,
// a desktop notification): escape sequences and control characters taken out, tabs and
// no-break spaces made plain ones, its ends trimmed, and at most max characters (cut with "…"). Screens are the agent's
// own text, and may hold anything. max 0 leaves the length as it is.
func Printable(line string, max int) string {
	if strings.ContainsAny(line, "\x1b\u009b") {
		line = stripansi.Strip(line)
	}
	var b strings.Builder
	n := 0
	for _, r := range strings.TrimFunc(line, isBlankRune) {
		switch {
		case r == '\t' || r == '\u00a0':
			r = ' '
		case r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) && r != '\u200d':
			continue
		}
		if max > 0 && n == max {
			return strings.TrimRightFunc(trimLastRune(b.String()), isBlankRune) + "…"
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// trimLastRune takes the last character off s, to make room for the "…" of a cut line.
func trimLastRune(s string) string {
	_, size := utf8.DecodeLastRuneInString(s)
	return s[:len(s)-size]
}
