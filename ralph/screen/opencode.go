package screen

var (
	// The bottom edge of opencode's input box: a ╹ corner and a run of ▀.
	opencodeBoxEndRe = compiled(`^[ \x{a0}]*╹▀{8,}$`)
	// The box's last line names the agent mode and the model ("┃  Build · Claude Sonnet 4.5
	// Anthropic"); the bar alone is also opencode's mark on every message in the transcript.
	opencodeModeRe = compiled(`^[ \x{a0}]*┃[ \x{a0}]+\S[^·]* · \S`)
	// Under the box while a turn runs: a progress bar of ⬝ and ■, then "esc interrupt",
	// with a retry message ("rate_limit_error [retrying in 2s attempt #1]") between them.
	opencodeBusyRe = compiled(`^[ \x{a0}]*[⬝■]{4,}[ \x{a0}].*\besc interrupt\b`)
)

// findOpencodeBox finds opencode's input box by its bottom edge under the mode line and
// returns the edge's line. opencode draws on the alternate screen, so a box left on screen
// is a live one: when it exits, the terminal shows what was there before it started.
func findOpencodeBox(lines []string) (int, bool) {
	for i := len(lines) - 1; i >= 1; i-- {
		if !opencodeBoxEndRe().MatchString(lines[i]) {
			continue
		}
		return i, opencodeModeRe().MatchString(lines[i-1])
	}
	return -1, false
}
