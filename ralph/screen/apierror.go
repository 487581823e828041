package screen

import "strings"

// An agent that gave up on its API (after its own retries) says so in its last message and
// waits at its prompt: Claude Code's "● API Error: 529 ...", "● API Error: Request rejected
// (429) ...", "● Please run /login · API Error: 401 ...", Codex's "■ exceeded retry limit,
// last status: 429 ...". Only the agent's own message lines count: they start with its
// bullet, which the echo of the prompt (❯, ›) and a tool's output (⎿, └) never do, and the
// error must open the message, not be quoted inside one.

//
// The bullet is ● on Linux and ⏺ (U+23FA) on macOS. Older releases put the error on a ⎿ line
// under the user's message ("  ⎿  API Error: 529 {"type":"error",...}"); that counts only right
// under the echo of the prompt, since under a tool call a ⎿ line is the tool's output.

var (
	apiErrorRe     = compiled(`^\s{0,2}(?:` + bulletClass + `|⎿)[\s\x{a0}]+((?:Please run /login · )?(?:API Error: |Request rejected \(\d{3}\)|exceeded retry limit|unexpected status \d{3}|stream error|stream disconnected before completion).*)$`)
	agentMessageRe = compiled(`^\s{0,2}(?:` + bulletClass + `|⎿)[\s\x{a0}]`)
	// A message the user sent: an error above it is over.
	userMessageRe = compiled(`^[❯›] \S`)
)

// APIError returns the agent's last message when it is an API error.
func APIError(lines []string) (string, bool) {
	if top, _, ok := findQwenInput(lines); ok {
		return qwenAPIError(lines[:top])
	}
	if box, ok := findCopilotInput(lines); ok {
		return copilotAPIError(lines[:box.top])
	}
	if text, ok := geminiAPIError(lines); ok {
		return text, true
	}
	input := -2 // not looked for yet: finding it costs more than the rest, and is rarely needed
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimRightFunc(lines[i], isBlankRune)
		if userMessageRe().MatchString(l) {
			if input == -2 {
				input = inputLine(lines)
			}
			if i != input {
				return "", false
			}
		}
		if !agentMessageRe().MatchString(l) {
			continue
		}
		m := apiErrorRe().FindStringSubmatch(l)
		if m == nil || strings.HasPrefix(strings.TrimSpace(l), "⎿") && !underUserMessage(lines[:i]) {
			return "", false
		}
		return strings.TrimSpace(m[1]), true
	}
	return "", false
}

// inputLine is the line of the agent's own input box or composer, -1 when none is on screen:
// text typed there (or its placeholder) has not been sent.
func inputLine(lines []string) int {
	if box, ok := findClaudeBox(lines); ok {
		return box.prompt
	}
	if i, ok := findCodexComposer(lines, bannerAgent(lines)); ok {
		return i
	}
	return -1
}
