package driver

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
)

// A failed iteration keeps the agent's last lines above its input box: in its record, in the
// log after its FAIL line, and in the loop state as its last failure.
func TestFailedIterationKeepsTheAgentsLastLines(t *testing.T) {
	h := supervisionHarness(t, setup{max: 10}, agentScript{submit: supervisionFailingWithLastWords},
		ralph.SupervisionConfig{Enabled: true, MaxFailures: 2, RetryBackoffSeconds: 1, HangTimeoutSeconds: 300}, nil)
	if code := h.run(h.config()); code != 1 {
		t.Fatalf("Run = %d, want 1", code)
	}
	recs, _, err := h.dir.ReadIterations()
	if err != nil || len(recs) != 2 {
		t.Fatalf("records %+v, %v; want 2", recs, err)
	}
	for i, r := range recs {
		last := "● Error: cannot reach the build cache (iteration " + string(rune('1'+i)) + ")"
		if len(r.LastLines) == 0 || r.LastLines[len(r.LastLines)-1] != last {
			t.Errorf("iteration %d's record keeps %q, want it to end with %q", r.Iteration, r.LastLines, last)
		}
	}
	st, err := h.dir.Load()
	if err != nil {
		t.Fatal(err)
	}
	f := st.LastFailure
	if f == nil || f.Iteration != 2 || f.Exit != "1" || f.At == "" || !reflect.DeepEqual(f.Lines, recs[1].LastLines) {
		t.Fatalf("last failure %+v, want iteration 2, exit 1, the lines of its record %q", f, recs[1].LastLines)
	}
	for _, l := range f.Lines {
		if strings.Contains(l, "? for shortcuts") || strings.TrimSpace(l) == "❯" || strings.Trim(l, "─") == "" {
			t.Errorf("the input box is kept: %q", f.Lines)
		}
	}
	logged, _ := os.ReadFile(h.dir.IterationsLog())
	if !strings.Contains(string(logged), "[SCREEN] iteration 1: ● Error: cannot reach the build cache (iteration 1)\n") {
		t.Errorf("the log lacks the failed iteration's last line:\n%s", logged)
	}
}

// An iteration that went well keeps no lines, and leaves the last failure as it was.
func TestIterationThatWentWellKeepsNoLines(t *testing.T) {
	h := newHarness(t, setup{max: 1}, agentScript{submit: func(tn turn) {
		tn.p.SetScreen(claudeIdle(append(echo(tn.prompt), "", "● all good")...))
		tn.p.Exit(0)
	}})
	if code := h.run(h.config()); code != 0 {
		t.Fatalf("Run = %d, want 0", code)
	}
	recs, _, _ := h.dir.ReadIterations()
	if len(recs) != 1 || recs[0].LastLines != nil {
		t.Errorf("records %+v, want one without lines", recs)
	}
	if st, _ := h.dir.Load(); st.LastFailure != nil {
		t.Errorf("last failure %+v after an iteration that went well", st.LastFailure)
	}
}

// What a report carries of a screen: above the input box, without tmux's note, bounded, safe.
func TestScreenTail(t *testing.T) {
	lines := []string{"● one", "", "● two \x1b[31mred\x1b[0m\a", "● " + strings.Repeat("x", 300), "", loopRule, "❯\u00a0", loopRule, "  ? for shortcuts", "", "Pane is dead (status 1, Sat Nov 28 10:00:00 2026)"}
	got := screenTail(lines, 2)
	want := []string{"● two red", "● " + strings.Repeat("x", maxLineSent-3) + "…"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("screenTail = %q, want %q", got, want)
	}
	refusal := []string{"--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons", "", "", "Pane is dead (status 1, Sat Nov 28 10:00:00 2026)"}
	if got := screenTail(refusal, 5); !reflect.DeepEqual(got, refusal[:1]) {
		t.Errorf("screenTail of an agent that refused = %q", got)
	}
	if got := screenTail(nil, 5); got == nil || len(got) != 0 {
		t.Errorf("screenTail of no screen = %#v, want an empty list", got)
	}
}
