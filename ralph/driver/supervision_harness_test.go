package driver

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

// Supervision's rules are driven through the same fake tmux, fake clock and scripted agent as
// the loop tests: each test sets one policy, makes the agent break (or keep) the rule it
// guards, and checks the transition the loop takes, so a rule that stops working fails here.

// supervisionHarness is a loop harness whose stored state carries the supervision policy rc;
// edit may adjust the rest of the state (phase, iteration, start commit) before the loop runs.
func supervisionHarness(t *testing.T, s setup, script agentScript, rc ralph.SupervisionConfig, edit func(*ralph.State)) *harness {
	t.Helper()
	h := newHarness(t, s, script)
	_, err := h.dir.Update(func(st *ralph.State) error {
		st.Supervision = &rc
		if edit != nil {
			edit(st)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// supervisionBeforeFirstRun makes the stored loop one that has not started any iteration yet.
func supervisionBeforeFirstRun(st *ralph.State) {
	st.Phase = ""
	st.CurrentIteration = 0
}

const supervisionPrefix = "🛡️  Regent: "

// supervisionLines are supervision's messages, prefix stripped, in order.
func supervisionLines(h *harness) []string {
	var out []string
	for _, l := range strings.Split(h.out.String(), "\n") {
		if strings.HasPrefix(l, supervisionPrefix) {
			out = append(out, strings.TrimPrefix(l, supervisionPrefix))
		}
	}
	return out
}

func wantSupervisionLines(h *harness, want ...string) {
	h.t.Helper()
	if got := supervisionLines(h); !reflect.DeepEqual(got, want) {
		h.t.Errorf("supervision said:\n  %s\nwant:\n  %s\nfull output:\n%s",
			strings.Join(got, "\n  "), strings.Join(want, "\n  "), h.out.String())
	}
}

func supervisionWantOut(h *harness, subs ...string) {
	h.t.Helper()
	out := h.out.String()
	for _, s := range subs {
		if !strings.Contains(out, s) {
			h.t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
}

func supervisionWantNotOut(h *harness, subs ...string) {
	h.t.Helper()
	out := h.out.String()
	for _, s := range subs {
		if strings.Contains(out, s) {
			h.t.Errorf("output has %q:\n%s", s, out)
		}
	}
}

func supervisionIterationsLog(h *harness) string {
	h.t.Helper()
	b, err := os.ReadFile(h.dir.IterationsLog())
	if err != nil && !os.IsNotExist(err) {
		h.t.Fatal(err)
	}
	return string(b)
}

func supervisionWantLog(h *harness, subs ...string) {
	h.t.Helper()
	log := supervisionIterationsLog(h)
	for _, s := range subs {
		if !strings.Contains(log, s) {
			h.t.Errorf("iterations.log lacks %q:\n%s", s, log)
		}
	}
}

func supervisionWantFailures(h *harness, st *ralph.State, consecutive, total int) {
	h.t.Helper()
	if st.ConsecutiveFailures != consecutive || st.TotalFailures != total {
		h.t.Errorf("failures %d/%d (consecutive/total), want %d/%d", st.ConsecutiveFailures, st.TotalFailures, consecutive, total)
	}
}

// supervisionAnimate draws the agent's screen now and redraws it every second of fake time with
// the next tick, for as long as this agent runs.
func supervisionAnimate(tn turn, draw func(prompt string, tick int) string) {
	tn.p.SetScreen(draw(tn.prompt, 0))
	var step func(tick int)
	step = func(tick int) {
		tn.later(time.Second, func(q *tmuxtest.FakePane) {
			q.SetScreen(draw(tn.prompt, tick))
			step(tick + 1)
		})
	}
	step(1)
}

var supervisionSpinnerGlyphs = []string{"·", "✢", "✳", "✶", "✻", "✽"}

// supervisionHungScreen is Claude stuck on a request, as recorded in screen/testdata/screens/claude-2.1.197/24_hang_*:
// the spinner glyph rotates and its counters climb, but no output ever appears.
func supervisionHungScreen(prompt string, tick int) string {
	lines := append(echo(prompt), "",
		fmt.Sprintf("%s Deciphering… (%ds · ↓ %d tokens · esc to interrupt)",
			supervisionSpinnerGlyphs[tick%len(supervisionSpinnerGlyphs)], tick, 25+tick),
		"  ⎿  Tip: Hit Enter to queue up additional messages while Claude is working.",
		"", loopRule, "❯\u00a0", loopRule,
		"  ⏵⏵ bypass permissions on (shift+tab to cycle) · esc to interrupt · ← for agents")
	return strings.Join(lines, "\n")
}

// supervisionSteadyScreen is an agent that prints a new line of real output every tick. Only the
// newest lines stay in view, as older ones scroll away; that keeps ten minutes of fake time
// cheap to capture and hash.
func supervisionSteadyScreen(prompt string, tick int) string {
	var out []string
	for i := max(1, tick-9); i <= tick; i++ {
		out = append(out, fmt.Sprintf("● Wrote section %d of the report.", i))
	}
	return claudeBusy(prompt, time.Duration(tick)*time.Second, out...)
}

// supervisionTmux is the fake tmux with every capture the loop makes recorded, to show what the
// loop saw on screen.
type supervisionTmux struct {
	*tmuxtest.Fake
	clock *fakeClock

	mu   sync.Mutex
	caps []supervisionCapture
}

type supervisionCapture struct {
	at      time.Time
	history int
	text    string
}

func (r *supervisionTmux) Capture(paneID string, historyLines int) (string, error) {
	s, err := r.Fake.Capture(paneID, historyLines)
	if err == nil {
		r.mu.Lock()
		r.caps = append(r.caps, supervisionCapture{at: r.clock.Now(), history: historyLines, text: s})
		r.mu.Unlock()
	}
	return s, err
}

// between returns the captures with the given history depth taken in (from, to).
func (r *supervisionTmux) between(history int, from, to time.Time) []supervisionCapture {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []supervisionCapture
	for _, c := range r.caps {
		if c.history == history && c.at.After(from) && c.at.Before(to) {
			out = append(out, c)
		}
	}
	return out
}
