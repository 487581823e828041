package screen

import "strings"

// An agent that gave up on its API (after its own retries) says so in its last message and
// waits at its prompt: Claude Code's "● API Error: 529 ...", "● API Error: Request rejected
// (429) ...", "● Please run /login · API Error: 401 ...", Codex's "■ exceeded retry limit,
// last status: 429 ...". Only the agent's own message lines count: they start with its
// bullet, which the echo of the prompt (❯, ›) and a tool's output (⎿, └) never do, and the
// error must open the message, not be quoted inside one.

var (
	apiErrorRe     = compiled(`^\s{0,2}[●■]\s+((?:Please run /login · )?(?:API Error: |Request rejected \(\d{3}\)|exceeded retry limit|unexpected status \d{3}|stream error|stream disconnected before completion).*)$`)
	agentMessageRe = compiled(`^\s{0,2}[●•■]\s`)
)

// APIError returns the agent's last message when it is an API error.
func APIError(lines []string) (string, bool) {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimRightFunc(lines[i], isBlankRune)
		if !agentMessageRe().MatchString(l) {
			continue
		}
		if m := apiErrorRe().FindStringSubmatch(l); m != nil {
			return strings.TrimSpace(m[1]), true
		}
		return "", false
	}
	return "", false
}
