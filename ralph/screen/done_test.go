package screen

import (
	"regexp"
	"testing"
)

func TestDoneMatcherCount(t *testing.T) {
	re := regexp.MustCompile(`ALL DONE`)
	oneLine := "Fix the failing tests, then print ALL DONE when finished."
	multi := "Study PLAN.md and pick the most important task.\nImplement it and run the tests.\nWhen nothing is left print ALL DONE on its own line."
	cases := []struct {
		name   string
		prompt string
		lines  []string
		want   int
	}{
		{"prompt echo only", oneLine, []string{
			"❯ " + oneLine,
			"",
			"● Looking at the tests.",
		}, 0},
		{"echo and a separate marker line", oneLine, []string{
			"❯ " + oneLine,
			"",
			"● Fixed them.",
			"",
			"● ALL DONE",
		}, 1},
		// opencode draws the message, in its input box and in the transcript, behind a ┃ bar.
		{"opencode's wrapped echo and its reply", oneLine, []string{
			"  ┃",
			"  ┃  Fix the failing tests, then print",
			"  ┃  ALL DONE when finished.",
			"  ┃",
			"     Done. ALL DONE",
		}, 1},
		// Gemini CLI's input line in --yolo mode, the prompt pasted and not yet sent.
		{"Gemini CLI's yolo input line", oneLine, []string{
			" *   " + oneLine,
		}, 0},
		{"opencode's echo beside its sidebar", oneLine, []string{
			"  ┃  Fix the failing tests, then print ALL DONE when finished.            Session title",
			"  ┃                                                                      Context",
			"     Working on it.",
		}, 0},
		{"marker right under the echo", oneLine, []string{
			"❯ " + oneLine,
			"ALL DONE",
		}, 1},
		{"multi-line prompt echoed with wrapping", multi, []string{
			"❯ Study PLAN.md and pick the most important",
			"  task.",
			"  Implement it and run the tests.",
			"  When nothing is left print ALL DONE on its",
			"  own line.",
			"",
			"● Reading PLAN.md.",
		}, 0},
		// Codex shows a message sent while it is still busy under "Queued follow-up inputs".
		{"Codex's queued input", oneLine, []string{
			"• Queued follow-up inputs",
			"  ↳ " + oneLine,
			"    shift+← edit last queued message",
			"",
			"› Ask Codex to do anything",
		}, 0},
	}
	for _, c := range cases {
		if got := NewDoneMatcher(re, c.prompt).Count(c.lines); got != c.want {
			t.Errorf("%s: Count = %d, want %d", c.name, got, c.want)
		}
	}
}

// The marker is half or more of a short prompt: printed on its own line it is not the echo,
// though it is, alone, a good part of the prompt's text.
func TestDoneMatcherShortPrompt(t *testing.T) {
	re := regexp.MustCompile(`<promise>COMPLETE</promise>`)
	prompt := "Do it. Print <promise>COMPLETE</promise> when done."
	cases := []struct {
		name  string
		lines []string
		want  int
	}{
		{"marker on its own line", []string{"❯ " + prompt, "", "<promise>COMPLETE</promise>"}, 1},
		{"marker under a bullet", []string{"❯ " + prompt, "● <promise>COMPLETE</promise>"}, 1},
		{"marker under the macOS bullet", []string{"❯ " + prompt, "⏺ <promise>COMPLETE</promise>"}, 1},
		{"marker alone, echo scrolled away", []string{"<promise>COMPLETE</promise>"}, 1},
		// The capture's top cuts the echo: what is left of it is the end of the prompt.
		{"the end of the echo at the capture's top", []string{"  <promise>COMPLETE</promise> when done.", "flood 1", "flood 2"}, 0},
		{"the end of the echo, then the marker", []string{"", "  when done.", "flood 1", "<promise>COMPLETE</promise>"}, 1},
		{"a marker lower down is no echo's end", []string{"flood 1", "  <promise>COMPLETE</promise> when done."}, 1},
		{"echo only", []string{"❯ " + prompt, "", "● Working on it."}, 0},
		{"echo wrapped", []string{"❯ Do it. Print <promise>COMPLETE</promise>", "  when done."}, 0},
		{"echo wrapped before the marker", []string{"❯ Do it. Print", "  <promise>COMPLETE</promise> when done."}, 0},
	}
	for _, c := range cases {
		if got := NewDoneMatcher(re, prompt).Count(c.lines); got != c.want {
			t.Errorf("%s: Count = %d, want %d", c.name, got, c.want)
		}
	}
	// A prompt that is only the marker: its echo is all it can be.
	if got := NewDoneMatcher(re, "<promise>COMPLETE</promise>").Count([]string{"❯ <promise>COMPLETE</promise>"}); got != 0 {
		t.Errorf("prompt that is the marker: Count = %d, want 0", got)
	}
}
