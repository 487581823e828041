package screen

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestUsageLimitOnRealScreens(t *testing.T) {
	// Claude Code 2.1.197 signed in with a subscription token, against a fake API that
	// answered 429 with the headers of a spent five-hour limit: the menu it then offers, and
	// the screen after Esc.
	for _, name := range []string{"70_claude_usage_limit_menu.txt", "71_claude_usage_limit_after_esc.txt"} {
		data, err := os.ReadFile(filepath.Join("testdata", "screens", name))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := UsageLimit(Lines(string(data)))
		if !ok || got != "You've hit your session limit · resets 9:41pm (UTC)" {
			t.Errorf("%s: %q %v", name, got, ok)
		}
	}
	for _, name := range []string{"10_idle_seeded_bypass.txt", "12_working_t10.txt", "23_err429_final_maxretries1.txt", "56_codex_429.txt"} {
		data, _ := os.ReadFile(filepath.Join("testdata", "screens", name))
		if got, ok := UsageLimit(Lines(string(data))); ok {
			t.Errorf("%s: a limit %q", name, got)
		}
	}
}

func TestUsageLimitOnlyInTheAgentsOwnReply(t *testing.T) {
	cases := map[string]bool{
		"❯ go\n  ⎿  You've hit your weekly limit · resets Nov 27, 9:32pm (Europe/Berlin)\n✻ Worked for 0s\n❯ \n":      true,
		"› go\n■ You’ve hit your usage limit. Upgrade to Plus or try again at 3:05 PM.\n› Ask Codex to do anything\n": true,
		// The prompt's echo, a file shown by a tool, and the agent quoting it are not.
		"❯ stop when You've hit your session limit · resets 9pm (UTC)\n● OK.\n❯ \n":                                  false,
		"● Bash(cat notes.md)\n  ⎿  You've hit your session limit · resets 9:41pm (UTC)\n● That file is a note.\n❯ ": false,
		"● Bash(cat notes.md)\n  ⎿  You've hit your session limit · resets 9:41pm (UTC)\n❯ ":                         false,
		"● The message \"You've hit your limit\" comes from the API.\n❯ ":                                            false,
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
