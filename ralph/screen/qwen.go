package screen

import "strings"

// Qwen Code, a fork of Gemini CLI, draws its input line between two full-width rules, and
// under them a footer whose last line names the approval mode ("YOLO mode (shift + tab to
// cycle)", "Enter to steer · Ctrl+Q to queue · Auto mode (shift + tab to cycle)" while a
// turn runs). Its input line is "> " (or "* " in YOLO mode) and the placeholder, the text
// typed, or, once a turn ended, a suggestion of what to type next in dim text that a capture
// cannot tell from typed text: the agent is at its prompt in every case, as Claude Code is
// with text in its box. Its messages start with a mark of their own: ◆ an answer, ✓ a tool
// that ran, ✕ an error, ● a notice, > the echo of a prompt.

var (
	// The footer's mode line, Qwen Code's own words: Gemini CLI's footer has none of them.
	qwenModeRe = compiled(`\(shift \+ tab to cycle\)$`)
	// An error message: "✕ [API Error: 500 ...] (Press Ctrl+Y to retry)".
	qwenAPIErrorRe = compiled(`^[ \x{a0}]{0,2}✕\x{fe0e}?[ \x{a0}]+\[(API Error: .*)\](?:[ \x{a0}]+\(.*\))?$`)
	// The first line of any message: its mark and a space.
	qwenMessageRe = compiled(`^[ \x{a0}]{0,2}[◆✓✕●>?]\x{fe0e}?[ \x{a0}]`)
)

// qwenFooterLines bounds the footer under the input's lower rule.
const qwenFooterLines = 4

// findQwenInput finds Qwen Code's input area: the lowest two rules with the input line right
// under the upper one, and the mode line in the footer under the lower one; top and bottom
// are the rules' lines.
func findQwenInput(lines []string) (top, bottom int, ok bool) {
	bottom, seen, mode := -1, 0, false
	for i := len(lines) - 1; i >= 0; i-- {
		if isRule(lines[i]) {
			bottom = i
			break
		}
		if trimBlank(lines[i]) == "" {
			continue
		}
		mode = mode || qwenModeRe().MatchString(trimBlank(lines[i]))
		if seen++; seen > qwenFooterLines {
			return -1, -1, false
		}
	}
	if bottom < 1 || !mode || !tailIsLive(lines, bottom+1) {
		return -1, -1, false
	}
	for i := bottom - 1; i >= 0 && i >= bottom-maxInputLines; i-- {
		if isRule(lines[i]) {
			return i, bottom, i+1 < bottom && geminiInputRe().MatchString(lines[i+1])
		}
	}
	return -1, -1, false
}

// qwenAPIError reads the agent's last message above its input area (the lines above top)
// when it is an API error.
func qwenAPIError(above []string) (string, bool) {
	for i := len(above) - 1; i >= 0; i-- {
		l := strings.TrimRightFunc(above[i], isBlankRune)
		if !qwenMessageRe().MatchString(l) {
			continue // a blank, a spinner, or a message's continuation
		}
		if m := qwenAPIErrorRe().FindStringSubmatch(l); m != nil {
			return strings.TrimSpace(m[1]), true
		}
		return "", false
	}
	return "", false
}
