package screen

import (
	"strings"
	"testing"
)

// The prompts the captured screens were made with (echoed in their transcripts, or typed).
var capturedPrompts = []string{
	"please make the file in this directory, then reply with <promise>COMPLETE</promise>.\n",
	"please make the file now",
	"please make the file",
	"triggerhang now",
	"triggerhang please",
	"trigger429 please",
	"please trigger429 now",
	"please triggerhang now",
	"line one of a multi-line prompt\nline two: please make the file\nline three end\n",
	"sendkeys line1\nsendkeys line2",
	"/exit",
	"error429 please",
}

// holdsWant names, per fixture whose input area holds a prompt, the prompt it holds ("*": a
// long paste's placeholder, which stands for any prompt). On every other fixture, no captured
// prompt is read as still in the input: an echo in the transcript, a footer that names the
// last prompt or an input's own placeholder must never pass for it.
var holdsWant = map[string]string{
	"claude-2.1.197/06_typing_slash_exit.txt":          "/exit",
	"claude-2.1.197/11_prompt_typed.txt":               "please make the file now",
	"claude-2.1.197/21_err429_after_esc.txt":           "trigger429 please", // Esc put it back
	"claude-2.1.197/25_hang_after_esc.txt":             "triggerhang please",
	"claude-2.1.197/34_multiline_pasted_bracketed.txt": "line one of a multi-line prompt\nline two: please make the file\nline three end\n",
	"claude-2.1.197/36_sendkeys_multiline.txt":         "sendkeys line1\nsendkeys line2",
	"claude-2.1.197/37_long_paste_placeholder.txt":     "*",
	"opencode-1.18.33/02_prompt_typed.txt":             "triggerhang now",
	"gemini-0.61.0/11_prompt_left_after_enter.txt":     "please make the file in this directory, then reply with <promise>COMPLETE</promise>.\n",
	"copilot-1.0.102/03_prompt_typed.txt":              "please make the file in this directory, then reply with <promise>COMPLETE</promise>.\n",
	"qwen-0.24.4/03_prompt_typed.txt":                  "please make the file in this directory, then reply with <promise>COMPLETE</promise>.\n",
	"qwen-0.24.4/07_prompt_back_after_esc.txt":         "error429 please", // Esc put it back
}

func TestHoldsPromptOnEveryRelease(t *testing.T) {
	for _, name := range fixtures(t) {
		lines := Lines(readScreen(t, name))
		for _, p := range capturedPrompts {
			want := holdsWant[name] == p || holdsWant[name] == "*"
			if strings.HasPrefix(p, "please make the file") && strings.HasPrefix(holdsWant[name], p) {
				want = true // a prompt that starts like the one held
			}
			if got := HoldsPrompt(lines, lines, p); got != want {
				t.Errorf("%s: HoldsPrompt(%q) = %v, want %v", name, p, got, want)
			}
		}
	}
}

// Gemini CLI's iteration that waited out the inactivity timeout: the Enter pressed after the
// paste did not submit it, though the screen changed; the screen it was ready at is its
// --yolo idle screen.
func TestHoldsPromptGeminiLeftInInput(t *testing.T) {
	ready := Lines(readScreen(t, "gemini-0.61.0/09_idle_yolo.txt"))
	left := Lines(readScreen(t, "gemini-0.61.0/11_prompt_left_after_enter.txt"))
	prompt := "please make the file in this directory, then reply with <promise>COMPLETE</promise>.\n"
	if !HoldsPrompt(left, ready, prompt) {
		t.Error("the prompt left in Gemini CLI's input is not seen")
	}
	if HoldsPrompt(ready, ready, prompt) {
		t.Error("an empty input (its placeholder) holds no prompt")
	}
	// The same prompt submitted: its echo above the rule is not the input.
	if HoldsPrompt(Lines(readScreen(t, "gemini-0.61.0/05_idle_after_reply.txt")), ready, prompt) {
		t.Error("the echo of the submitted prompt is taken for the input")
	}
	if HoldsPrompt(left, ready, "something else entirely") {
		t.Error("another prompt is seen in the input")
	}
}

// A long paste shows as the agent's placeholder, whatever the prompt.
func TestHoldsPromptPastePlaceholders(t *testing.T) {
	long := "Study PLAN.md\n" + strings.Repeat("a line\n", 40)
	if !HoldsPrompt(Lines(readScreen(t, "claude-2.1.197/37_long_paste_placeholder.txt")), nil, long) {
		t.Error("Claude Code's placeholder")
	}
	for _, placeholder := range []string{"[Pasted Text: 41 lines]", "[Pasted Text: 612 chars #2]", "[Pasted ~41 lines]"} {
		lines := geminiScreen(" * " + placeholder)
		if !HoldsPrompt(lines, nil, long) {
			t.Errorf("%s is not seen", placeholder)
		}
	}
	codex := Lines(strings.Replace(readScreen(t, "codex-0.171.0/51_idle.txt"), "› Ask Codex to do anything", "› [Pasted Content 1520 chars]", 1))
	if !HoldsPrompt(codex, nil, long) {
		t.Error("Codex's placeholder")
	}
}

// geminiScreen is Gemini CLI's input area (as 0.61.0 draws it) with input as its input line.
func geminiScreen(input ...string) []string {
	lines := []string{"✦ Done.", "", strings.Repeat("─", 60), " YOLO Ctrl+Y", ""}
	lines = append(lines, input...)
	return append(lines, "", " workspace (/directory)     sandbox", " ~/w                        no sandbox")
}

func TestHoldsPromptShapes(t *testing.T) {
	prompt := "please make the file in this directory, then reply when done.\nSecond line."
	claudeIdle := []string{rule, "❯\u00a0", rule, "  ? for shortcuts"}
	demoReady := []string{"demo agent ready", "", "❯\u00a0"}
	for _, c := range []struct {
		name         string
		lines, ready []string
		prompt       string
		want         bool
	}{
		{"a wrapped first line in Claude's box", []string{rule, "❯\u00a0please make the fi", "  le in this directory, then re", "  ply when done.", rule}, claudeIdle, prompt, true},
		{"Claude's box emptied", claudeIdle, claudeIdle, prompt, false},
		{"only the start is compared", []string{rule, "❯\u00a0please make the file in this directory, then", rule}, claudeIdle, prompt, true},
		{"a prompt opening with blank lines", []string{rule, "❯\u00a0Study PLAN.md", rule}, claudeIdle, "\n\n  Study PLAN.md\n", true},
		{"an empty prompt", []string{rule, "❯\u00a0x", rule}, claudeIdle, " \n\n", false},
		{"Codex's composer", []string{">_ OpenAI Codex (v0.171.0)", "", "› please make the file in this directory, then", "  reply when done.", "", "  gpt-5.1-codex default · ~/w"}, nil, prompt, true},
		{"Codex's composer, its placeholder", []string{"› please make the file in this directory, then", "• Working (2s • esc to interrupt)", "", "› Ask Codex to do anything", "", "  gpt-5.1-codex default · ~/w"}, nil, prompt, false},
		{"Gemini CLI's input, several lines", geminiScreen(" > please make the file in this directory,", "   then reply when done.", "   Second line."), nil, prompt, true},
		{"Gemini CLI's shell mode", geminiScreen(" ! please make the file in this directory, then reply"), nil, prompt, true},
		{"a bare glyph prompt left with text", []string{"demo agent ready", "", "❯\u00a0please make the file in this directory, then reply when done.", "  Second line."}, demoReady, prompt, true},
		{"an echo with another glyph", []string{"demo agent ready", "", "> please make the file in this directory, then reply when done.", "  Second line."}, demoReady, prompt, false},
		{"a glyph line with output under it", []string{"❯\u00a0please make the file in this directory, then reply when done.", "● Making it."}, demoReady, prompt, false},
		{"a glyph line and no ready screen", []string{"❯\u00a0please make the file in this directory, then reply when done."}, nil, prompt, false},
		{"a boxed prompt", []string{"╭──────────────╮", "│ > please make the file in this directory │", "╰──────────────╯"}, []string{"╭──────────────╮", "│ >            │", "╰──────────────╯"}, prompt, true},
	} {
		if got := HoldsPrompt(c.lines, c.ready, c.prompt); got != c.want {
			t.Errorf("%s: HoldsPrompt = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestPromptStart(t *testing.T) {
	for _, c := range []struct{ prompt, want string }{
		{"Do it.\nMore.", "Doit."},
		{"\n \t\n  Study  PLAN.md\u00a0now", "StudyPLAN.mdnow"},
		{strings.Repeat("é", 40), strings.Repeat("é", promptStartRunes)},
		{"", ""},
		{"\n\n", ""},
	} {
		if got := promptStart(c.prompt); got != c.want {
			t.Errorf("promptStart(%q) = %q, want %q", c.prompt, got, c.want)
		}
	}
}

// The echo of a prompt the agent took, on the real screens: it counts above the input area
// only, and only when it was not there before the paste.
func TestEchoesPromptOnTheReleases(t *testing.T) {
	makeFile := "please make the file in this directory, then reply with <promise>COMPLETE</promise>.\n"
	for _, c := range []struct {
		ready, now, prompt string
		want               bool
	}{
		{"gemini-0.61.0/09_idle_yolo.txt", "gemini-0.61.0/05_idle_after_reply.txt", makeFile, true},
		{"gemini-0.61.0/01_idle.txt", "gemini-0.61.0/02_working.txt", makeFile, true},
		{"gemini-0.61.0/09_idle_yolo.txt", "gemini-0.61.0/11_prompt_left_after_enter.txt", makeFile, false},
		{"claude-2.1.197/10_idle_seeded_bypass.txt", "claude-2.1.197/12_working_t01.txt", "please make the file now", true},
		{"claude-2.1.197/10_idle_seeded_bypass.txt", "claude-2.1.197/11_prompt_typed.txt", "please make the file now", false},
		{"codex-0.171.0/51_idle.txt", "codex-0.171.0/57_hang_t4.txt", "please triggerhang now", true},
		// An echo of an earlier prompt, there before the paste, is not this one's.
		{"codex-0.171.0/56_429.txt", "codex-0.171.0/57_hang_t4.txt", "please trigger429 now", false},
		{"opencode-1.18.33/01_idle.txt", "opencode-1.18.33/03_working.txt", "triggerhang now", true},
		{"qwen-0.24.4/01_idle_yolo.txt", "qwen-0.24.4/05_idle_after_reply_suggestion.txt", makeFile, true},
		{"qwen-0.24.4/01_idle_yolo.txt", "qwen-0.24.4/03_prompt_typed.txt", makeFile, false},
		{"opencode-1.18.33/01_idle.txt", "opencode-1.18.33/02_prompt_typed.txt", "triggerhang now", false},
	} {
		ready, now := Lines(readScreen(t, c.ready)), Lines(readScreen(t, c.now))
		if got := EchoesPrompt(now, ready, c.prompt); got != c.want {
			t.Errorf("%s after %s: EchoesPrompt(%q) = %v, want %v", c.now, c.ready, c.prompt, got, c.want)
		}
	}
	// A screen never echoes a prompt more than itself.
	for _, name := range fixtures(t) {
		lines := Lines(readScreen(t, name))
		for _, p := range capturedPrompts {
			if EchoesPrompt(lines, lines, p) {
				t.Errorf("%s echoes %q beside itself", name, p)
			}
		}
	}
}

func TestEchoesPromptShapes(t *testing.T) {
	prompt := "please make the file in this directory, then reply when done."
	idle := geminiScreen(" *   Type your message or @path/to/file")
	for _, c := range []struct {
		name string
		now  []string
		want bool
	}{
		{"queued", append([]string{"  Queued (press ↑ to edit):", "    please make the file in this", "    directory, then reply when done."}, idle...), true},
		{"a long paste's placeholder", append([]string{" > [Pasted Text: 41 lines]"}, idle...), true},
		{"nothing new", idle, false},
		{"only in the input", geminiScreen(" * please make the file in this directory, then reply when done."), false},
		{"an empty prompt", idle, false},
	} {
		p := prompt
		if c.name == "an empty prompt" {
			p = "\n \n"
		}
		if got := EchoesPrompt(c.now, idle, p); got != c.want {
			t.Errorf("%s: EchoesPrompt = %v, want %v", c.name, got, c.want)
		}
	}
}
