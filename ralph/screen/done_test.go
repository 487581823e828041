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
