package screen

import (
	"strings"
	"unicode/utf8"
)

// What an agent's input area holds once Enter was pressed on a pasted prompt. An agent that
// took the prompt empties its input; one that missed the Enter (a busy TUI, or one that takes
// an Enter right after a paste for a newline in it, as Gemini CLI does) keeps the prompt there,
// while the rest of its screen may well have changed (the paste drawn late, a notice). An
// agent that took it mostly shows it above its input too: in its transcript, or its queue.

// promptStartRunes bounds how much of the prompt's first line is compared: enough to tell
// the prompt from anything else in an input area, little enough to fit an input area that
// shows only the start of a long line.
const promptStartRunes = 32

// maxGeminiTail bounds the lines under Gemini CLI's rule: hints, an input of up to five lines
// (a longer paste shows as a placeholder) and the footer.
const maxGeminiTail = 12

var (
	// The placeholder an agent shows for a long paste instead of its text: Claude Code's
	// "[Pasted text #1 +40 lines]", Gemini CLI's "[Pasted Text: 120 lines]", opencode's
	// "[Pasted ~12 lines]", Codex's "[Pasted Content 1520 chars]".
	pastePlaceholderRe = compiled(`\[Pasted (?:text #\d+(?: \+\d+ lines)?|Text: \d+ (?:lines|chars)(?: #\d+)?|~\d+ lines|Content \d+ chars)\]`)
	// Gemini CLI's input line: > (or * in --yolo mode, ! in shell mode) and what was typed.
	geminiInputRe = compiled(`^[ \x{a0}]?[>*!][ \x{a0}]+\S`)
	// A prompt glyph with text after it, the input line of an agent drawn like a REPL.
	glyphTextRe = compiled(`^([❯›>])[ \x{a0}]+\S`)
)

// HoldsPrompt reports whether the agent's input area on a screen (as Lines makes it) still
// holds the prompt swarm pasted into it: text that starts like the prompt's first line
// (blanks left out, as a wrapped line may break anywhere), or the placeholder the agent shows
// for a long paste. ready is the screen the agent showed at its input prompt before the paste:
// an agent without an input area swarm knows (aider, a REPL, a TUI drawn like one) is read at
// a prompt line that starts with the glyph it showed there, since the echo of a submitted
// message often starts with a glyph of its own.
func HoldsPrompt(lines, ready []string, prompt string) bool {
	_, area := promptArea(lines, ready)
	if len(area) == 0 {
		return false
	}
	text := strings.Join(area, "\n")
	if pastePlaceholderRe().MatchString(text) {
		return true
	}
	want := promptStart(prompt)
	return want != "" && strings.HasPrefix(withoutBlanks(text), want)
}

// EchoesPrompt reports whether a screen shows the prompt above the agent's input area (the
// start of its first line, or a long paste's placeholder) more often than the screen the agent
// was ready at: the agent's echo of a prompt it took, in its transcript or its queue.
func EchoesPrompt(lines, ready []string, prompt string) bool {
	want := promptStart(prompt)
	if want == "" {
		return false
	}
	return echoes(lines, ready, want) > echoes(ready, ready, want)
}

// echoes counts the prompt's starts and paste placeholders above the input area.
func echoes(lines, ready []string, want string) int {
	top, _ := promptArea(lines, ready)
	above := strings.Join(lines[:top], "\n")
	return strings.Count(withoutBlanks(above), want) + len(pastePlaceholderRe().FindAllStringIndex(above, -1))
}

// promptArea finds the agent's input area: the line it starts on (len(lines) when there is
// none), and the text in it, line by line, its prompt glyph and frame left out (nil when the
// area holds no text swarm can read).
func promptArea(lines, ready []string) (int, []string) {
	if box, ok := findClaudeBox(lines); ok {
		return box.top, typed(lines[box.prompt:box.bottom], "❯")
	}
	if end, ok := findOpencodeBox(lines); ok {
		top := opencodeBoxTop(lines, end)
		return top, typed(lines[top:end-1], "")
	}
	if comp, ok := findCodexComposer(lines, bannerAgent(lines)); ok {
		return comp, typed(untilBlank(lines[comp:]), "›")
	}
	if top, bottom, ok := findQwenInput(lines); ok {
		return top, typed(lines[top+1:bottom], ">*!")
	}
	if rule, in, ok := geminiInput(lines); ok {
		return rule, typed(untilBlank(lines[in:]), ">*!")
	}
	if glyph := readyGlyph(ready); glyph != "" {
		if in, ok := glyphInput(lines, glyph); ok {
			return in, typed(untilBlank(lines[in:]), glyph)
		}
	}
	return inputTop(lines), nil
}

// geminiInput finds Gemini CLI's input line with text in it: the first line under the lowest
// rule, below any hint lines, with its > (or *, !) glyph; and the rule. Under the rule there is
// nothing but the input and the footer, so the echo of a submitted prompt (also "> ...")
// above it never counts.
func geminiInput(lines []string) (rule, input int, ok bool) {
	rule, seen := -1, 0
	for i := len(lines) - 1; i >= 0 && seen <= maxGeminiTail; i-- {
		if isRule(lines[i]) {
			rule = i
			break
		}
		if trimBlank(lines[i]) != "" {
			seen++
		}
	}
	if rule < 0 {
		return -1, -1, false
	}
	for i := rule + 1; i < len(lines); i++ {
		l := lines[i]
		if trimBlank(l) == "" || hintRe().MatchString(l) {
			continue
		}
		return rule, i, geminiInputRe().MatchString(l)
	}
	return -1, -1, false
}

// readyGlyph is the glyph of the input prompt on a screen of an agent drawn like a REPL (a
// bare glyph, or one in a box); "" when there is none.
func readyGlyph(ready []string) string {
	p, ok := promptLine(ready)
	if !ok {
		return ""
	}
	r, _ := utf8.DecodeRuneInString(unframed(ready[p]))
	if !strings.ContainsRune("❯›>", r) {
		return ""
	}
	return string(r)
}

// glyphInput finds the input line of an agent drawn like a REPL with text in it: glyph and
// text among the last lines, with only a footer (indented lines, rules) below.
func glyphInput(lines []string, glyph string) (int, bool) {
	seen := 0
	for i := len(lines) - 1; i >= 0 && seen < genericBusyWindow; i-- {
		l := unframed(lines[i])
		if l == "" {
			continue
		}
		seen++
		if m := glyphTextRe().FindStringSubmatch(l); m != nil && m[1] == glyph && onlyFrameBelow(lines[i+1:]) {
			return i, true
		}
	}
	return -1, false
}

// onlyFrameBelow reports whether the lines under an input line are no more than its frame: a
// footer (indented lines, rules) and the bottom edge of a box drawn around the input.
func onlyFrameBelow(lines []string) bool {
	var rest []string
	for _, l := range nonBlankOf(lines) {
		if !strings.HasPrefix(trimBlank(l), "╰") {
			rest = append(rest, l)
		}
	}
	return footerOnly(rest)
}

// untilBlank is lines up to the first blank one: an input line and its continuation lines,
// without the footer drawn under them after a gap.
func untilBlank(lines []string) []string {
	for i, l := range lines {
		if trimBlank(l) == "" {
			return lines[:i]
		}
	}
	return lines
}

// typed is the text of an input area's lines: their frame taken off, and the prompt glyph
// (one of glyphs) at the start of the first.
func typed(area []string, glyphs string) []string {
	out := make([]string, 0, len(area))
	for i, l := range area {
		l = unframed(l)
		if r, size := utf8.DecodeRuneInString(l); i == 0 && glyphs != "" && strings.ContainsRune(glyphs, r) {
			l = l[size:]
		}
		out = append(out, trimBlank(l))
	}
	return out
}

// unframed is a line without the box or bar drawn around it, and without blanks at its ends.
func unframed(l string) string {
	return trimBlank(strings.Trim(trimBlank(l), "│┃║"))
}

// promptStart is the start of the prompt's first non-blank line, without blanks, at most
// promptStartRunes long.
func promptStart(prompt string) string {
	for prompt != "" {
		var line string
		line, prompt, _ = strings.Cut(prompt, "\n")
		if len(line) > maxPromptLine {
			line = line[:maxPromptLine] // a rune cut in two can only make a comparison fail
		}
		s := withoutBlanks(line)
		if s == "" {
			continue
		}
		n := 0
		for i := range s {
			if n == promptStartRunes {
				return s[:i]
			}
			n++
		}
		return s
	}
	return ""
}

// maxPromptLine bounds how much of the prompt's first line is read: a prompt may be one
// enormous line, of which only the start is compared.
const maxPromptLine = 4096

// withoutBlanks is s with every blank (spaces, tabs, no-break spaces, newlines) left out.
func withoutBlanks(s string) string {
	return strings.Map(func(r rune) rune {
		if isBlankRune(r) {
			return -1
		}
		return r
	}, s)
}
