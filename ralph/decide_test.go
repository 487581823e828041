package ralph

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// One test per transition of the loop's policy: facts in, decision out. No tmux, no
// processes, no files, no clock.

func code(c int) *int { return &c }

var testLimits = Limits{MaxIterations: 10, InactivitySeconds: 30, Supervision: DefaultSupervision()}

func lineTexts(d Decision) []string {
	var out []string
	for _, l := range d.Lines {
		prefix := ""
		if l.Supervision {
			prefix = "Regent: "
		}
		out = append(out, prefix+l.Text)
	}
	return out
}

func eventTexts(d Decision) []string {
	var out []string
	for _, e := range d.Events {
		out = append(out, "["+e.Kind+"] "+e.Text)
	}
	return out
}

// want is the part of a decision a transition test pins down.
type want struct {
	status   Status
	reason   string
	phase    Phase
	failures [2]int // consecutive, total (when counters are set)
	backoff  time.Duration
	lines    []string
	events   []string
	escalate string
	endAgent bool
}

func check(t *testing.T, d Decision, w want) {
	t.Helper()
	if d.Status != w.status || d.ExitReason != w.reason || d.Phase != w.phase {
		t.Errorf("status/reason/phase = %q/%q/%q, want %q/%q/%q", d.Status, d.ExitReason, d.Phase, w.status, w.reason, w.phase)
	}
	if d.SetCounters && [2]int{d.ConsecutiveFailures, d.TotalFailures} != w.failures {
		t.Errorf("failures = %d/%d, want %v", d.ConsecutiveFailures, d.TotalFailures, w.failures)
	}
	if d.Backoff != w.backoff {
		t.Errorf("backoff = %v, want %v", d.Backoff, w.backoff)
	}
	if got := lineTexts(d); !reflect.DeepEqual(got, w.lines) {
		t.Errorf("lines:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(w.lines, "\n  "))
	}
	if got := eventTexts(d); !reflect.DeepEqual(got, w.events) {
		t.Errorf("events:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(w.events, "\n  "))
	}
	if d.Escalate != w.escalate || d.EndAgent != w.endAgent {
		t.Errorf("escalate %q, end agent %v; want %q, %v", d.Escalate, d.EndAgent, w.escalate, w.endAgent)
	}
}

func TestBeforeIteration(t *testing.T) {
	cases := []struct {
		name    string
		iter    int
		markers Markers
		start   bool
		want    want
	}{
		{"starts the next one", 3, Markers{}, true, want{}},
		{"complete at the limit", 10, Markers{DoneFile: true}, false, want{status: StatusStopped, reason: "max_iterations", phase: PhaseEnded,
			lines: []string{"max iterations (10) reached"}, events: []string{"[STOP] max iterations (10) reached"}}},
		{"one iteration, singular", 1, Markers{}, false, want{}},
		{"DONE file stops it as done", 3, Markers{DoneFile: true, DonePath: "/l/DONE"}, false, want{status: StatusStopped, reason: "done_file", phase: PhaseEnded,
			lines: []string{"task completed (DONE marker present), stopping loop"}, events: []string{"[DONE] DONE file present at /l/DONE"}}},
		{"unreadable DONE fails and escalates", 3, Markers{DoneFileErr: "DONE is a directory: /l/DONE"}, false, want{status: StatusFailed,
			reason: "done_is_directory", phase: PhaseEnded, lines: []string{"fatal error: DONE is a directory: /l/DONE"},
			events: []string{"[FAIL] DONE is a directory: /l/DONE"}, escalate: "DONE is a directory: /l/DONE"}},
		{"WAIT file stops without failing", 3, Markers{WaitFile: true}, false, want{status: StatusStopped, reason: "wait_without_restart", phase: PhaseEnded,
			lines:  []string{"wait-without-restart signal detected (WAIT_WITHOUT_RESTART file present), stopping loop"},
			events: []string{"[WAIT] WAIT_WITHOUT_RESTART file present"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lim := testLimits
			if c.name == "one iteration, singular" {
				lim.MaxIterations = 1
				c.want = want{status: StatusStopped, reason: "max_iterations", phase: PhaseEnded,
					lines: []string{"max iterations (1) reached"}, events: []string{"[STOP] max iterations (1) reached"}}
			}
			d, start := BeforeIteration(Counters{Iteration: c.iter}, lim, c.markers)
			if start != c.start {
				t.Fatalf("start = %v, want %v", start, c.start)
			}
			check(t, d, c.want)
		})
	}
}

func TestDonePatternSeen(t *testing.T) {
	check(t, DonePatternSeen(4), want{status: StatusStopped, reason: "done_pattern", phase: PhaseEnded,
		lines: []string{"done pattern matched, stopping loop"}, events: []string{"[DONE] iteration 4 done pattern matched"}, endAgent: true})
}

func TestAnnounce(t *testing.T) {
	lim := testLimits
	lim.Supervision.IterationTimeout = 600
	cases := []struct {
		name   string
		iter   int
		ending Ending
		want   want
	}{
		{"exit says nothing yet", 2, EndExited, want{}},
		{"quiet, more to come", 2, EndInactive, want{lines: []string{"inactivity timeout (30s), restarting"},
			events: []string{"[TIMEOUT] iteration 2 inactivity 30s"}}},
		{"quiet in the last iteration", 10, EndInactive, want{lines: []string{"inactivity timeout (30s)"},
			events: []string{"[TIMEOUT] iteration 10 inactivity 30s"}}},
		{"turn ended, more to come", 2, EndTurnEnded, want{lines: []string{"the agent's turn ended without the done marker, restarting"},
			events: []string{"[TURN] iteration 2 turn ended without the done marker (the agent's Stop signal)"}}},
		{"turn ended in the last iteration", 10, EndTurnEnded, want{lines: []string{"the agent's turn ended without the done marker"},
			events: []string{"[TURN] iteration 10 turn ended without the done marker (the agent's Stop signal)"}}},
		{"hung", 2, EndHung, want{lines: []string{"Regent: agent hung (no progress on screen for 300s) — killing it and restarting"},
			events: []string{"[HANG] iteration 2 no progress for 300s"}}},
		{"out of time", 2, EndIterationTimeout, want{lines: []string{"Regent: iteration 2 exceeded 600s — killing the agent"},
			events: []string{"[TIMEOUT] iteration 2 exceeded 600s"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { check(t, Announce(c.iter, c.ending, lim, true), c.want) })
	}
}

func TestAnnounceDefaultInactivity(t *testing.T) {
	lim := testLimits
	lim.InactivitySeconds = 0
	d := Announce(1, EndInactive, lim, true)
	if got := lineTexts(d); len(got) != 1 || got[0] != "inactivity timeout (60s), restarting" {
		t.Errorf("lines %q, want the default of 60s", got)
	}
}

func TestAnnounceWhilePausedDoesNotPromiseARestart(t *testing.T) {
	check(t, Announce(2, EndInactive, testLimits, false), want{lines: []string{"inactivity timeout (30s)"},
		events: []string{"[TIMEOUT] iteration 2 inactivity 30s"}})
}
