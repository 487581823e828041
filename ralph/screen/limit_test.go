package screen

import (
	"testing"
	"time"
)

func TestUsageLimitOnlyInTheAgentsOwnReply(t *testing.T) {
	cases := map[string]bool{
		"❯ go\n  ⎿  You've hit your weekly limit · resets Nov 27, 9:32pm (Europe/Berlin)\n✻ Worked for 0s\n❯ \n":      true,
		"› go\n■ You’ve hit your usage limit. Upgrade to Plus or try again at 3:05 PM.\n› Ask Codex to do anything\n": true,
		// The prompt's echo, a file shown by a tool, and the agent quoting it are not.
		"❯ stop when You've hit your session limit · resets 9pm (UTC)\n● OK.\n❯ \n":                                  false,
		"● Bash(cat notes.md)\n  ⎿  You've hit your session limit · resets 9:41pm (UTC)\n● That file is a note.\n❯ ": false,
		"● Bash(cat notes.md)\n  ⎿  You've hit your session limit · resets 9:41pm (UTC)\n❯ ":                         false,
		"● The message \"You've hit your limit\" comes from the API.\n❯ ":                                            false,
		// On macOS the bullet is ⏺.
		"› go\n⏺ You've hit your session limit · resets 9:41pm (UTC)\n❯ \n": true,
		// 2.1.332: in the footer under the input box; quoted above the box it is a reply.
		"❯ go\n────────────\n❯ \n────────────\n  ⚠ Usage limit reached · limit resets 1:03pm\n    Continuing shortly · Esc to cancel\n": true,
		"● The footer said:\n  ⚠ Usage limit reached · limit resets 1:03pm\n────────────\n❯ \n────────────\n  ? for shortcuts\n":        false,
		// Over once the agent went on.
		"❯ go\n  ⎿  You've hit your session limit · resets 9:41pm (UTC)\n❯ again\n● Done.\n❯ ": false,
	}
	for screen, want := range cases {
		if _, got := UsageLimit(Lines(screen)); got != want {
			t.Errorf("%q: %v, want %v", screen, got, want)
		}
	}
}

func TestLimitReset(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	now := time.Date(2026, 11, 24, 19, 42, 0, 0, time.UTC)
	cases := []struct {
		text string
		want time.Time
	}{
		// Shown to the minute, rounded down: the end of that minute.
		{"You've hit your session limit · resets 9:41pm (UTC)", time.Date(2026, 11, 24, 21, 42, 0, 0, time.UTC)},
		{"You've hit your session limit · resets 7:42pm (UTC)", time.Date(2026, 11, 24, 19, 43, 0, 0, time.UTC)},
		// Long past today: tomorrow; just past: it has reset.
		{"You've hit your session limit · resets 6:30pm (UTC)", time.Date(2026, 11, 25, 18, 31, 0, 0, time.UTC)},
		{"You've hit your session limit · resets 7:40pm (UTC)", now},
		{"You've hit your session limit · resets 9:32pm (Europe/Berlin)", time.Date(2026, 11, 24, 21, 33, 0, 0, berlin)},
		{"You've hit your weekly limit · resets Nov 27, 9:32pm (Europe/Berlin)", time.Date(2026, 11, 27, 21, 33, 0, 0, berlin)},
		{"You've hit your weekly limit · resets Jan 2, 9am (UTC)", time.Date(2027, 1, 2, 9, 1, 0, 0, time.UTC)},
		{"Claude AI usage limit reached|1795560000", time.Unix(1795560000, 0)},
		// Claude Code 2.1.332 names no zone: the time is the agent's, passed in as now's zone.
		{"Usage limit reached · limit resets 9:03pm", time.Date(2026, 11, 24, 21, 4, 0, 0, time.UTC)},
		{"You’ve hit your usage limit. Upgrade to Plus or try again in 2 hours 5 minutes.", now.Add(2*time.Hour + 5*time.Minute)},
		{"You’ve hit your usage limit. try again at 8:05 PM.", time.Date(2026, 11, 24, 20, 6, 0, 0, time.UTC)},
	}
	for _, c := range cases {
		got, ok := LimitReset(c.text, now)
		if !ok || !got.Equal(c.want) {
			t.Errorf("%q: %v %v, want %v", c.text, got, ok, c.want)
		}
	}
	for _, text := range []string{"You've hit your session limit", "resets 9:41pm (Mars/Olympus)", "resets 13:00pm (UTC)"} {
		if got, ok := LimitReset(text, now); ok {
			t.Errorf("%q: %v, want no time", text, got)
		}
	}
}
