package ralph

import (
	"regexp"
	"testing"
)

func TestDoneExpression(t *testing.T) {
	cases := []struct {
		name     string
		patterns []string
		builtins bool
		match    []string
		miss     []string
	}{
		{"built-ins by default", nil, true,
			[]string{"<promise>COMPLETE</promise>", "RALPH_STATUS: COMPLETE", "RALPH_STATUS:COMPLETE"},
			[]string{"promise COMPLETE", "RALPH_STATUS: IN_PROGRESS", "ALL DONE"}},
		{"several patterns and built-ins", []string{"ALL DONE", "fin{2,3}"}, true,
			[]string{"ALL DONE", "finnn", "<promise>COMPLETE</promise>"}, []string{"fin"}},
		{"built-ins off", []string{"ALL DONE"}, false,
			[]string{"ALL DONE"}, []string{"<promise>COMPLETE</promise>", "RALPH_STATUS: COMPLETE"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var st State
			st.SetDonePatterns(c.patterns, c.builtins)
			re := regexp.MustCompile(st.DoneExpression())
			for _, s := range c.match {
				if !re.MatchString(s) {
					t.Errorf("%q not matched", s)
				}
			}
			for _, s := range c.miss {
				if re.MatchString(s) {
					t.Errorf("%q matched", s)
				}
			}
		})
	}
	var none State
	none.SetDonePatterns(nil, false)
	if none.DoneExpression() != "" || none.DonePattern != nil {
		t.Errorf("nothing asked for: %q", none.DoneExpression())
	}
	var old State // written before several patterns: the one it has still counts
	p := "LEGACY"
	old.DonePattern = &p
	if got := old.UserDonePatterns(); len(got) != 1 || got[0] != "LEGACY" {
		t.Errorf("legacy pattern %v", got)
	}
}

// One case per transition of the stagnation breaker.
func TestStagnation(t *testing.T) {
	cases := []struct {
		name  string
		f     StagnationFacts
		count int
		stop  bool
		off   bool
	}{
		{"off", StagnationFacts{Limit: 0, InRepo: true, Before: "a", After: "a", Count: 5}, 0, false, true},
		{"not a repository", StagnationFacts{Limit: 3}, 0, false, true},
		{"unchanged counts", StagnationFacts{Limit: 3, InRepo: true, Before: "a", After: "a", Count: 1}, 2, false, false},
		{"unchanged at the limit stops", StagnationFacts{Limit: 3, InRepo: true, Before: "a", After: "a", Count: 2}, 3, true, false},
		{"a change resets", StagnationFacts{Limit: 3, InRepo: true, Before: "a", After: "b", Count: 2}, 0, false, false},
		{"no earlier reading: a start, not a stall", StagnationFacts{Limit: 3, InRepo: true, After: "a", Count: 0}, 0, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, stop := stagnation(c.f)
			if c.off {
				if r != nil || stop {
					t.Fatalf("breaker acted while off: %+v %v", r, stop)
				}
				return
			}
			if r == nil || r.Count != c.count || stop != c.stop || r.Fingerprint != c.f.After {
				t.Errorf("got %+v %v, want count %d stop %v", r, stop, c.count, c.stop)
			}
		})
	}
}

func TestAfterRunStopsAStagnatedLoopUnlessItEndsAnyway(t *testing.T) {
	lim := Limits{MaxIterations: 10, StagnationLimit: 3, Supervision: DefaultSupervision()}
	zero := 0
	stalled := StagnationFacts{Limit: 3, InRepo: true, Before: "a", After: "a", Count: 2}
	d := AfterRun(RunFacts{Counters: Counters{Iteration: 4}, Ending: EndExited, ExitCode: &zero, Running: true, Stagnation: stalled}, lim)
	if d.Status != StatusStopped || d.ExitReason != "stagnated" || !d.Ended || len(d.Events) == 0 ||
		d.Events[len(d.Events)-1].Kind != "STAGNATED" || d.Events[len(d.Events)-1].Text != "no git changes in 3 iterations" {
		t.Errorf("decision %+v", d)
	}
	// After the last iteration the loop completes as usual (not stagnated); a paused loop is
	// left paused.
	d = AfterRun(RunFacts{Counters: Counters{Iteration: 10}, Ending: EndExited, ExitCode: &zero, Running: true, Stagnation: stalled}, lim)
	if d.ExitReason != "" || d.Status != "" || d.Stagnation == nil || d.Stagnation.Count != 3 {
		t.Errorf("last iteration: %+v", d)
	}
	d = AfterRun(RunFacts{Counters: Counters{Iteration: 4}, Ending: EndExited, ExitCode: &zero, Running: false, Stagnation: stalled}, lim)
	if d.Status != "" || d.ExitReason != "" {
		t.Errorf("paused loop: %+v", d)
	}
}
