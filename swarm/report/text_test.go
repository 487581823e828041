package report

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

func sample() Report {
	ws := []Worker{
		{Name: "builder", Host: "local", State: "done", Loop: true, Outcomes: Outcomes{Total: 12, Done: 1, Ended: 10, Failed: 1},
			Failures: []Reason{{OutcomeFailed, "API Error: 529 overloaded", 1}}, CostUSD: usd(4.12),
			Time:    Time{WorkingS: 7800, Waiting: Waits{BackoffS: 180}},
			Landing: &Landing{State: "landed", Target: "main", Commit: "1a2b3c4d5e6f"}},
		{Name: "fixer", Host: "box", State: "running", Loop: true, Outcomes: Outcomes{Total: 3, Ended: 3},
			Time:        Time{WorkingS: 600, Waiting: Waits{UsageLimitS: 7200, BackoffS: 1}},
			NeedsPerson: &NeedsPerson{Kind: "permission", What: "permission: Bash(rm -rf build)", Since: "2024-05-02T08:00:00Z"},
			Landing:     &Landing{State: "breaks_tests", Target: "main", Reason: "make test: exit 2", SentBack: true}},
	}
	return Report{Since: "2024-05-01T09:00:00Z", Until: "2024-05-02T09:00:00Z", Workers: ws,
		Hosts:  []Host{{Name: "box", Answered: true}, {Name: "attic", Problem: "no answer within the time limit"}},
		Totals: Sum(ws, []Host{{Name: "attic"}})}
}

func text(t *testing.T, r Report, width int) string {
	t.Helper()
	var b strings.Builder
	if err := Text(&b, r, width, time.UTC); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestTextSaysTheNight(t *testing.T) {
	got := text(t, sample(), 0)
	for _, want := range []string{
		"Since Wed 2024-05-01 09:00 (1d ago), until 09:00\n",
		"NAME     HOST   STATE      ITERATIONS                      WORKED  WAITED                      COST   LAND\n",
		"builder  local  done       12: 1 done, 10 ended, 1 failed  2h 10m  3m (backoff)                $4.12  landed 1a2b3c4\n",
		"fixer    box    running    3: 3 ended                      10m     2h (mostly usage limit)     -      sent back: breaks tests\n",
		"TOTAL           2 workers  15: 1 done, 13 ended, 1 failed  2h 20m  2h 3m (mostly usage limit)  $4.12  1 landed, 1 sent back\n",
		"\nWent wrong:\n  builder: failed: API Error: 529 overloaded\n",
		"\nLandings:\n  builder: landed on main at 1a2b3c4\n  fixer@box: breaks tests, sent back to its loop: make test: exit 2\n",
		"\nNeeds you:\n  fixer@box: permission: Bash(rm -rf build), since 08:00 (1h ago); answer it with 'swarm attach fixer@box'\n",
		"\nHosts that did not answer:\n  attic: no answer within the time limit\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("text lacks %q:\n%s", want, got)
		}
	}
}

func TestTextFitsTheTerminal(t *testing.T) {
	for _, width := range []int{120, 100, 80, 60, 40} {
		got := text(t, sample(), width)
		for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			if ansi.StringWidth(l) > width {
				t.Errorf("width %d: a line of %d: %q", width, ansi.StringWidth(l), l)
			}
		}
		// The headers are never cut, and the needs-you line loses nothing: it wraps.
		if !strings.Contains(got, "ITERATIONS") || !strings.Contains(strings.Join(strings.Fields(got), " "), "answer it with 'swarm attach fixer@box'") {
			t.Errorf("width %d:\n%s", width, got)
		}
	}
}

func TestTextWithNothingToSay(t *testing.T) {
	r := Report{Since: "2024-05-01T09:00:00Z", Until: "2024-05-02T09:00:00Z"}
	got := text(t, r, 80)
	if !strings.Contains(got, "Nothing happened") || strings.Contains(got, "NAME") {
		t.Errorf("text:\n%s", got)
	}
}

func TestTextCleansWhatRecordsSay(t *testing.T) {
	r := sample()
	r.Workers[0].Failures[0].Reason = "boom\x1b]0;pwned\x07\x1b[2J\u202egnp.exe\nnext"
	r.Workers[1].NeedsPerson.What = "\x1b[31mred\x1b[0m"
	r.Hosts[1].Problem = "bad\rhost"
	got := text(t, r, 0)
	if strings.ContainsAny(got, "\x1b\x07\r\u202e") {
		t.Fatalf("control characters reached the terminal: %q", got)
	}
	for _, want := range []string{`boom\x1b]0;pwned\x07\x1b[2J\u202egnp.exe next`, `\x1b[31mred\x1b[0m`, `bad\x0dhost`} {
		if !strings.Contains(got, want) {
			t.Errorf("text lacks %q:\n%s", want, got)
		}
	}
}

func TestCleanLeavesTextAlone(t *testing.T) {
	for _, s := range []string{"plain", "naïve — ✓ 日本", ""} {
		if got := Clean(s); got != s {
			t.Errorf("Clean(%q) = %q", s, got)
		}
	}
	if got := Clean("a\xffb"); got != "a\ufffdb" {
		t.Errorf("Clean of a byte that is no UTF-8: %q", got)
	}
}

func TestCleanLinesKeepsLinesAndEscapesTheRest(t *testing.T) {
	got := CleanLines("w1: running\n\tup 3s\x1b]2;pwned\x07\r\n\u202eok")
	want := "w1: running\n\tup 3s\\x1b]2;pwned\\x07\\x0d\n\\u202eok"
	if got != want {
		t.Errorf("CleanLines = %q, want %q", got, want)
	}
	if s := "two\nlines\tand a tab"; CleanLines(s) != s {
		t.Errorf("CleanLines changed plain text: %q", CleanLines(s))
	}
}
