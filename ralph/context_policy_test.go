package ralph

import (
	"strings"
	"testing"
)

// One case per transition of the context watch.
func TestContextCheck(t *testing.T) {
	cases := []struct {
		name   string
		f      ContextFacts
		act    ContextAct
		ending Ending
		read   *ContextReading
		event  string
	}{
		{"off", ContextFacts{Max: 0, Used: 99, Seen: true, Compacting: true}, ContextNothing, 0, nil, ""},
		{"not shown", ContextFacts{Max: 70}, ContextNothing, 0, nil, ""},
		{"below the limit: noted", ContextFacts{Iteration: 2, Max: 70, Used: 40, Seen: true}, ContextNothing, 0, &ContextReading{Used: 40}, ""},
		{"at the limit: nudge", ContextFacts{Iteration: 2, Max: 70, Used: 70, Seen: true}, ContextNudge, 0,
			&ContextReading{Used: 70, Nudged: true}, "WARN iteration 2 context nudge sent at 70%"},
		{"nudged already: no second nudge", ContextFacts{Iteration: 2, Max: 70, Used: 80, Seen: true, Nudged: true}, ContextNothing, 0, &ContextReading{Used: 80}, ""},
		{"limit + 15: end", ContextFacts{Iteration: 2, Max: 70, Used: 85, Seen: true, Nudged: true}, ContextEnd, EndContextLimit, &ContextReading{Used: 85}, ""},
		{"past it without a nudge: end", ContextFacts{Iteration: 2, Max: 70, Used: 95, Seen: true}, ContextEnd, EndContextLimit, &ContextReading{Used: 95}, ""},
		{"compaction", ContextFacts{Iteration: 2, Max: 70, Compacting: true}, ContextEnd, EndCompaction, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			act, ending, d := ContextCheck(c.f)
			if act != c.act || ending != c.ending {
				t.Fatalf("act %d ending %v, want %d %v", act, ending, c.act, c.ending)
			}
			if (d.Context == nil) != (c.read == nil) || d.Context != nil && *d.Context != *c.read {
				t.Errorf("reading %+v, want %+v", d.Context, c.read)
			}
			var events []string
			for _, e := range d.Events {
				events = append(events, e.Kind+" "+e.Text)
			}
			if strings.Join(events, ";") != c.event {
				t.Errorf("events %q, want %q", events, c.event)
			}
		})
	}
}

// Ending an iteration for its context is not a failure, and the log says why.
func TestContextEndingsAreNotFailures(t *testing.T) {
	lim := Limits{MaxIterations: 5, MaxContext: 70, Supervision: DefaultSupervision()}
	for _, e := range []Ending{EndContextLimit, EndCompaction} {
		code := 143
		d := AfterRun(RunFacts{Counters: Counters{Iteration: 2, ConsecutiveFailures: 1}, Ending: e, ExitCode: &code, Running: true}, lim)
		if d.ConsecutiveFailures != 1 || d.Backoff != 0 || d.Status != "" {
			t.Errorf("%v: %+v", e, d)
		}
		a := Announce(2, e, lim, true)
		if len(a.Events) != 1 || a.Events[0].Kind != "CONTEXT" || !strings.Contains(a.Events[0].Text, strings.ReplaceAll(e.String(), " ", "_")) {
			t.Errorf("%v announced %+v", e, a.Events)
		}
	}
}
