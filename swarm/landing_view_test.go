package swarm

import (
	"testing"

	"github.com/swarm-dev/swarm/swarm/dashboard"
	"github.com/swarm-dev/swarm/swarm/land"
)

func TestLandingInWords(t *testing.T) {
	cases := []struct {
		l          *landingJSON
		text, word string
	}{
		{&landingJSON{State: land.Landed, Target: "main", Commit: "abc1234def"}, "landed on main at abc1234", "landed abc1234"},
		{&landingJSON{State: land.Landed, Target: "main", Commit: "abc1234def", Pushed: "origin/main"},
			"landed on main at abc1234, pushed to origin/main", "landed abc1234"},
		{&landingJSON{State: land.Queued, Target: "main"}, "queued (into main)", "queued"},
		{&landingJSON{State: land.Testing, Target: "main"}, "testing (into main)", "testing"},
		{&landingJSON{State: land.NeedsRebase, Target: "main", Reason: "conflicts with main in a.go"},
			"needs rebase: conflicts with main in a.go", "needs rebase"},
		{&landingJSON{State: land.BreaksTests, Target: "main", Reason: "tests failed", ResumedLoop: "2026-01-01T00:00:00Z"},
			"breaks tests, sent back to its loop: tests failed", "sent back: breaks tests"},
	}
	for _, c := range cases {
		if got := landingText(c.l); got != c.text {
			t.Errorf("landingText(%+v) = %q, want %q", c.l, got, c.text)
		}
		if got := landingWord(c.l); got != c.word {
			t.Errorf("landingWord(%+v) = %q, want %q", c.l, got, c.word)
		}
	}
	if got := landingWord(nil); got != "-" {
		t.Errorf("landingWord(nil) = %q", got)
	}
}

func TestDashboardRowWithLanding(t *testing.T) {
	r := dashboard.Row{State: "done", Tone: dashboard.ToneGood}
	withLanding(&r, nil)
	if r.State != "done" {
		t.Fatalf("no record changed the row: %+v", r)
	}
	withLanding(&r, &landingJSON{State: land.Landed, Commit: "abc1234def"})
	if r.State != "done · landed abc1234" || r.Tone != dashboard.ToneGood {
		t.Fatalf("landed: %+v", r)
	}
	r = dashboard.Row{State: "done", Tone: dashboard.ToneGood}
	withLanding(&r, &landingJSON{State: land.NeedsRebase})
	if r.State != "done · needs rebase" || r.Tone != dashboard.ToneWarn {
		t.Fatalf("sent back: %+v", r)
	}
	r = dashboard.Row{State: "working", Tone: dashboard.ToneBusy}
	withLanding(&r, &landingJSON{State: land.BreaksTests, ResumedLoop: "x"})
	if r.State != "working · sent back: breaks tests" || r.Tone != dashboard.ToneBusy {
		t.Fatalf("sent back and working on it: %+v", r)
	}
}
