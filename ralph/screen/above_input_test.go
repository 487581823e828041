package screen

import (
	"strings"
	"testing"
)

// lastAbove is the last non-blank line above the input area, trimmed.
func lastAbove(lines []string) string {
	tail := lastNonBlankAs(AboveInput(lines), 1, trimBlank)
	if len(tail) == 0 {
		return ""
	}
	return tail[0]
}

// What the agent said last, on the real screens: the input area and what is drawn under it
// (and the hints right above it) are left out; a screen without an input area stays whole.
func TestAboveInputOnTheReleases(t *testing.T) {
	for name, want := range map[string]string{
		"claude-2.1.332/12_idle_after_reply.txt":          "✻ Sautéed for 0s · done 12:04 PM",
		"claude-2.1.332/31_idle_auto_mode_after_tool.txt": "✻ Churned for 0s · done 12:22 PM",
		"claude-2.1.332/10_idle_seeded_bypass.txt":        "code.claude.com/docs/en/changelog for details",
		"claude-2.1.197/23_err529_final_maxretries1.txt":  "✻ Baked for 0s",
		"claude-2.1.197/09_idle_bypass_mode.txt":          "▘▘ ▝▝    /home/dev/w4",
		"claude-2.1.197/24_hang_t30.txt":                  "⎿ \u00a0Tip: Hit Enter to queue up additional messages while Claude is working.",
		"codex-0.171.0/55_idle_after_reply.txt":           "Worked for <1s • 12:18",
		"codex-0.171.0/56_429.txt":                        "■ exceeded retry limit, last status: 429 Too Many Requests",
		"codex-0.169.0/53_codex_working.txt":              "◦ Working (1s • esc to interrupt)",
		"gemini-0.61.0/05_idle_after_reply.txt":           "✦ Done. <promise>COMPLETE</promise>",
		"gemini-0.61.0/07_hang_after_esc.txt":             "ℹ Request cancelled.",
		"opencode-1.18.33/05_idle_after_reply.txt":        "▣  Build · Claude Sonnet 4.5 (latest) · 1.9s",
		"qwen-0.24.4/05_idle_after_reply_suggestion.txt":  "◆︎ Done. <promise>COMPLETE</promise>",
		"copilot-1.0.102/05_idle_after_reply.txt":         "● Done. COMPLETE",
		// No input area: a dialog, an agent that exited.
		"claude-2.1.332/dialog_trust-folder.txt":       "Enter to confirm · Esc to cancel",
		"claude-2.1.197/14_after_two_ctrl_d.txt":       "EXITED rc=0",
		"claude-2.1.197/32_bash_permission_prompt.txt": "Esc to cancel · Tab to amend · ctrl+e to explain",
	} {
		t.Run(name, func(t *testing.T) {
			if got := lastAbove(Lines(readScreen(t, name))); got != want {
				t.Errorf("last line above the input area = %q, want %q", got, want)
			}
		})
	}
}

// inputMarkRe matches what only an input area or its footer shows: an empty input line, a
// composer's or input box's placeholder, the hints under it.
var inputMarkRe = compiled(`^[❯›>]$|Ask Codex to do anything|Type your message|Ask anything…|← for agents|` + hintRe().String())

// On every screen of every release that has an input area, none of it is left in the last lines.
func TestAboveInputLeavesNoInputArea(t *testing.T) {
	for _, name := range fixtures(t) {
		lines := Lines(readScreen(t, name))
		above := AboveInput(lines)
		if len(above) == len(lines) {
			continue // no input area: the screen is whole
		}
		for _, l := range lastNonBlankAs(above, 5, trimBlank) {
			if inputMarkRe().MatchString(l) {
				t.Errorf("%s: %q is left above the input area", name, l)
			}
		}
	}
}

// Agents without captures of their own: a prompt in a box (older Claude Code, Gemini CLI), a
// bare prompt glyph over a footer.
func TestAboveInputGenericPrompts(t *testing.T) {
	for _, c := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"a boxed prompt", []string{"● Working on it", "", "╭────────────────╮", "│ >              │", "╰────────────────╯", "  ? for shortcuts"}, "● Working on it"},
		{"a prompt under a rule, hints between", []string{"✦ Done.", "   ? for shortcuts", "──────────────────", " Shift+Tab to accept edits", " >   Type your message or @path/to/file", " ~/w    no sandbox"}, "✦ Done."},
		{"a bare glyph", []string{"demo agent ready", "● hi", "", "❯"}, "● hi"},
		{"no prompt at all", []string{"--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons"}, "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons"},
		{"a prompt far above the end is output", []string{"> quoted", "a", "b", "c", "d", "e", "f", "g"}, "g"},
	} {
		if got := lastAbove(c.lines); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestPrintable(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"plain words", 80, "plain words"},
		{"\x1b[31mred\x1b[0m and \x1b]0;title\x07plain", 80, "red and plain"},
		{"bell\a, backspace\b, nul\x00, del\x7f, c1\u0085", 80, "bell, backspace, nul, del, c1"},
		{"a\tb", 80, "a b"},
		{"right-to-left \u202eoverride", 80, "right-to-left override"},
		{"  padded\u00a0 ", 80, "padded"},
		{"no\u00a0break", 80, "no break"},
		{"0123456789", 5, "0123…"},
		{"01234", 5, "01234"},
		{"éééééé", 3, "éé…"},
		{"bad \xff byte", 80, "bad  byte"},
		{strings.Repeat("x", 300), 0, strings.Repeat("x", 300)},
	} {
		if got := Printable(c.in, c.max); got != c.want {
			t.Errorf("Printable(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
