package screen

import "strings"

// GitHub Copilot CLI draws Claude Code's input box (a ❯ line between two full-width rules,
// the working folder and branch above it) but its own footer under it: the mode and the
// permissions ("Interactive · Allow All · / commands · ..."), or, while a turn runs, a
// spinner and "Working" ("◎ Working esc esc edit prompt"). Its messages start with a mark
// of their own: ● an answer or a notice, ✗ an error, ❯ the echo of a prompt, $ a shell
// command. When the transcript is longer than the pane a scroll bar (┃) ends its lines.
// Its answers are rendered as Markdown, which drops HTML-like tags: "<promise>COMPLETE
// </promise>" shows as "COMPLETE".

var (
	// The footer under the input box: the mode named, or the spinner's "Working".
	copilotFooterRe = compiled(`^[ \x{a0}]*(?:[◎◉●○◌][ \x{a0}]+Working\b|(?:.* · )?(?:Interactive|Plan|Autopilot) · )`)
	// An API error: the status and the API's message ("✗ 400 fake API: ..."), or the
	// message after its retries ("✗ Failed to get response from the AI model; retried 5
	// times (...) Last error: 500 ...").
	copilotAPIErrorRe = compiled(`^[ \x{a0}]?✗[ \x{a0}]+((?:[45]\d\d|Failed to get response from the AI model)\b.*)$`)
	// The first line of any message: its mark and a space, one space in.
	copilotMessageRe = compiled(`^[ \x{a0}]?[●✗❯$✓◆][ \x{a0}]`)
)

// findCopilotInput finds Copilot's input box: Claude Code's, with Copilot's footer right
// under it.
func findCopilotInput(lines []string) (claudeBox, bool) {
	box, ok := findClaudeBox(lines)
	if !ok || box.bottom+1 >= len(lines) || !copilotFooterRe().MatchString(lines[box.bottom+1]) {
		return claudeBox{}, false
	}
	return box, true
}

// copilotTop is the first line of Copilot's input area: the folder line over its box.
func copilotTop(lines []string, box claudeBox) int {
	if box.top > 0 && trimBlank(lines[box.top-1]) != "" && !copilotMessageRe().MatchString(lines[box.top-1]) {
		return box.top - 1
	}
	return box.top
}

// copilotAPIError reads the agent's last message above its input box (the lines above top)
// when it is an API error; a message that wraps gives its first line.
func copilotAPIError(above []string) (string, bool) {
	for i := len(above) - 1; i >= 0; i-- {
		l := withoutScrollBar(above[i])
		if !copilotMessageRe().MatchString(l) {
			continue // a blank, the folder line, or a message's continuation
		}
		if m := copilotAPIErrorRe().FindStringSubmatch(l); m != nil {
			return strings.TrimSpace(m[1]), true
		}
		return "", false
	}
	return "", false
}

// withoutScrollBar is a line without the scroll bar at its end, nor the blanks before it.
func withoutScrollBar(l string) string {
	return strings.TrimRightFunc(strings.TrimSuffix(strings.TrimRightFunc(l, isBlankRune), "┃"), isBlankRune)
}
