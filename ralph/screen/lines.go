package screen

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/acarl005/stripansi"
)

// bulletClass matches the glyph an agent puts before each of its messages: Claude Code's ●
// (⏺, U+23FA, on macOS), Codex's • and ■ (for errors).
const bulletClass = `[●⏺•■]`

// bulletRe matches a line that opens with an agent's message bullet.
var bulletRe = compiled(`^` + bulletClass + `(?:[\s\x{a0}]|$)`)

func isBlankRune(r rune) bool { return unicode.IsSpace(r) || r == '\u00a0' }

// Lines strips ANSI codes, right-trims each line (NBSP counts as space here, since
// Claude pads its prompt with it) and drops trailing blank lines. NBSPs inside a line are
// kept: they tell Claude's input box (`❯` NBSP) from a submitted message (`❯` space).
func Lines(text string) []string {
	if strings.ContainsAny(text, "\x1b\u009b") {
		text = stripansi.Strip(text) // captures come without; a pane's raw output does not
	}
	raw := strings.Split(text, "\n")
	lines := make([]string, 0, len(raw))
	for _, l := range raw {
		lines = append(lines, strings.TrimRightFunc(l, isBlankRune))
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// lastNonBlank returns up to n of the last non-blank lines, in screen order.
func lastNonBlank(lines []string, n int) []string { return lastNonBlankAs(lines, n, nil) }

// lastNonBlankAs is lastNonBlank of the lines as as makes them (as nil: as they are). Only
// the lines it needs are made: a capture with its scrollback holds thousands.
func lastNonBlankAs(lines []string, n int, as func(string) string) []string {
	var tail []string
	for i := len(lines) - 1; i >= 0 && len(tail) < n; i-- {
		l := lines[i]
		if as != nil {
			l = as(l)
		}
		if l != "" {
			tail = append(tail, l)
		}
	}
	slices.Reverse(tail)
	return tail
}

// LastN is the last n lines (all of them when n is 0 or more than there are).
func LastN(lines []string, n int) []string {
	if n > 0 && len(lines) > n {
		return lines[len(lines)-n:]
	}
	return lines
}

// TrimBlankTail drops the blank lines at the end of a screen: the empty rows a terminal
// keeps below the last line of output.
func TrimBlankTail(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(strings.ReplaceAll(lines[len(lines)-1], "\u00a0", " ")) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// tailStart returns the index from which lines[:end] holds n non-blank lines.
func tailStart(lines []string, end, n int) int {
	i := end
	for i > 0 && n > 0 {
		i--
		if lines[i] != "" {
			n--
		}
	}
	return i
}

func trimBlank(l string) string { return strings.TrimFunc(l, isBlankRune) }

// isRule reports a full-width horizontal rule, which Claude draws above and below its input box.
func isRule(l string) bool {
	l = strings.TrimSpace(l)
	if utf8.RuneCountInString(l) < 10 {
		return false
	}
	return strings.Trim(l, "─") == ""
}
