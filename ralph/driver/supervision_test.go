package driver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/ralph/screen"
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

func TestSupervisionHangKillsAnimatedAgent(t *testing.T) {
	h := supervisionHarness(t, setup{max: 2, inactivity: 1000}, agentScript{
		submit: func(tn turn) {
			if tn.it == 1 {
				supervisionAnimate(tn, supervisionHungScreen)
				return
			}
			tn.p.Exit(0)
		},
	}, ralph.SupervisionConfig{Enabled: true, HangTimeoutSeconds: 30}, nil)
	rt := &supervisionTmux{Fake: h.fake, clock: h.clock}
	cfg := h.config()
	cfg.Tmux = rt
	if code := h.run(cfg); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines(
		"iteration 1 failed (exit: hung), retrying in 1s (attempt 1/5)",
		"starting iteration 2/2",
		"iteration 2 completed (exit: 0, duration: 0s)",
		"max iterations (2) reached",
	)
	supervisionWantOut(h, "Regent: agent hung (no progress on screen for 30s)")
	st := h.state()
	h.wantState(st, ralph.StatusStopped, "max_iterations", 2)
	// A hang is a failed iteration; the success after it reset the run of failures.
	supervisionWantFailures(h, st, 0, 1)
	if rs := h.dir.LoadSupervision(); rs.Hangs != 1 {
		t.Errorf("regent-state hangs %d, want 1", rs.Hangs)
	}
	supervisionWantLog(h, "[HANG] iteration 1 no progress for 30s", "[FAIL] iteration 1 exit=hung")

	starts, submits := h.startRecs(), h.submitRecs()
	kills := h.procs.liveKills()
	if len(kills) != 1 || kills[0].pid != starts[0].pid {
		t.Fatalf("live kills %+v, want iteration 1's agent (pid %d)", kills, starts[0].pid)
	}
	if kills[0].grace <= 0 {
		t.Errorf("killed with grace %v, want the group ended gracefully", kills[0].grace)
	}
	if after := kills[0].at.Sub(submits[0].at); after < 30*time.Second || after > 33*time.Second {
		t.Errorf("hung agent killed %v after the prompt, want the 30s hang timeout", after)
	}
	// The screen was never still: the kill is the hang rule, not the inactivity one.
	// The watch captures with the default 2000 lines of history.
	caps := rt.between(2000, submits[0].at, kills[0].at)
	if len(caps) < 10 {
		t.Fatalf("%d screen captures while the agent hung, want one per screen poll", len(caps))
	}
	// The animation ticks every second: captures a second or more apart never match.
	prev := caps[0]
	for i := 1; i < len(caps); i++ {
		if caps[i].at.Sub(prev.at) >= time.Second {
			if screen.ActivityHash(caps[i].text) == screen.ActivityHash(prev.text) {
				t.Errorf("captures at %v and %v show the same screen; the hang must animate:\n%s",
					prev.at.Sub(submits[0].at), caps[i].at.Sub(submits[0].at), caps[i].text)
			}
			prev = caps[i]
		}
		if screen.SubstantiveHash(caps[i].text) != screen.SubstantiveHash(caps[0].text) {
			t.Errorf("capture at %v shows progress; the hung agent must print nothing new", caps[i].at.Sub(submits[0].at))
		}
	}
}

// The hang and inactivity clocks start when the prompt is delivered: an agent that is slow to
// show its input prompt has neither hung nor gone quiet, and once it has the prompt it gets
// the full timeout to work on it.
func TestSupervisionQuietTimersStartAtPromptDelivery(t *testing.T) {
	cases := []struct {
		name       string
		inactivity int
		rc         ralph.SupervisionConfig
		load       time.Duration // how long the agent takes to show its input box
		work       func(tn turn)
		timeout    time.Duration
	}{
		{"hang", 1000, ralph.SupervisionConfig{Enabled: true, HangTimeoutSeconds: 30}, 40 * time.Second,
			func(tn turn) { supervisionAnimate(tn, supervisionHungScreen) }, 30 * time.Second},
		{"inactivity", 60, ralph.DefaultSupervision(), 65 * time.Second,
			// Answers, then sits at its prompt for good.
			func(tn turn) { tn.p.SetScreen(claudeIdle(append(echo(tn.prompt), "", "● I had a look around.")...)) },
			60 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := supervisionHarness(t, setup{max: 2, inactivity: c.inactivity, readyTimeout: 120}, agentScript{
				start: func(tn turn) {
					if tn.it == 2 {
						// Loading for longer than the timeout before the input box shows.
						tn.p.SetScreen("Loading MCP servers…")
						tn.later(c.load, func(q *tmuxtest.FakePane) { q.SetScreen(claudeIdle()) })
						return
					}
					tn.p.SetScreen(claudeIdle())
				},
				submit: func(tn turn) {
					if tn.it == 1 {
						tn.p.Exit(0)
						return
					}
					c.work(tn)
				},
			}, c.rc, nil)
			if code := h.run(h.config()); code != 0 {
				t.Errorf("Run = %d, want 0", code)
			}
			starts, submits := h.startRecs(), h.submitRecs()
			if len(starts) != 2 || len(submits) != 2 {
				t.Fatalf("%d starts, %d submits; want 2 each\n%s", len(starts), len(submits), h.out.String())
			}
			if wait := submits[1].at.Sub(starts[1].at); wait < c.load {
				t.Fatalf("iteration 2 prompt delivered after %v, want after the %v load", wait, c.load)
			}
			kills := h.procs.liveKills()
			if len(kills) != 1 || kills[0].pid != starts[1].pid {
				t.Fatalf("live kills %+v, want iteration 2's agent (pid %d)", kills, starts[1].pid)
			}
			if after := kills[0].at.Sub(submits[1].at); after < c.timeout || after > c.timeout+3*time.Second {
				t.Errorf("agent killed %v after it got the prompt (%v after it started), want the %v timeout counted from the prompt\n%s",
					after, kills[0].at.Sub(starts[1].at), c.timeout, h.out.String())
			}
		})
	}
}

func TestSupervisionSteadyOutputIsNotAHang(t *testing.T) {
	h := supervisionHarness(t, setup{max: 1, inactivity: 1000}, agentScript{
		submit: func(tn turn) { supervisionAnimate(tn, supervisionSteadyScreen) },
	}, ralph.SupervisionConfig{Enabled: true, HangTimeoutSeconds: 30, IterationTimeout: 120}, nil)
	// Two minutes of output, four hang timeouts: only the iteration limit ends it, and as its
	// only iteration failed the loop failed.
	if code := h.run(h.config()); code != 1 {
		t.Errorf("Run = %d, want 1", code)
	}
	h.wantLines(
		"iteration 1 failed (exit: iteration timeout)",
		"max iterations reached (1) and every iteration failed",
	)
	supervisionWantOut(h, "Regent: iteration 1 exceeded 120s — killing the agent")
	supervisionWantNotOut(h, "hung")
	if rs := h.dir.LoadSupervision(); rs.Hangs != 0 {
		t.Errorf("regent-state hangs %d, want 0", rs.Hangs)
	}
	kills := h.procs.liveKills()
	if len(kills) != 1 {
		t.Fatalf("live kills %+v, want one", kills)
	}
	if ran := kills[0].at.Sub(h.clock.start); ran < 120*time.Second || ran > 121*time.Second {
		t.Errorf("agent killed after %v, want the 120s iteration timeout", ran)
	}
	// The progress it made was seen, right up to the end.
	rs := h.dir.LoadSupervision()
	last, err := time.Parse(time.RFC3339, rs.LastOutputAt)
	if err != nil {
		t.Fatalf("regent-state last_output_at %q: %v", rs.LastOutputAt, err)
	}
	if gap := kills[0].at.Sub(last); gap < 0 || gap > 3*time.Second {
		t.Errorf("last output seen %v before the kill, want within a screen poll", gap)
	}
}

func TestSupervisionIterationTimeoutCountsAsFailure(t *testing.T) {
	// Four failures already: the timed-out iteration is the fifth, and the loop gives up.
	h := supervisionHarness(t, setup{max: 10, consecutive: 4, inactivity: 1000}, agentScript{
		submit: func(tn turn) { supervisionAnimate(tn, supervisionSteadyScreen) },
	}, ralph.SupervisionConfig{Enabled: true, HangTimeoutSeconds: 300, IterationTimeout: 60}, nil)
	if code := h.run(h.config()); code != 1 {
		t.Errorf("Run = %d, want 1", code)
	}
	h.wantLines("5 consecutive failures, stopping loop")
	wantSupervisionLines(h,
		"iteration 1 exceeded 60s — killing the agent",
		"5 consecutive failures (last exit: iteration timeout) — stopping and reporting",
	)
	st := h.state()
	h.wantState(st, ralph.StatusFailed, "consecutive_failures", 1)
	supervisionWantFailures(h, st, 5, 5)
	supervisionWantLog(h, "[TIMEOUT] iteration 1 exceeded 60s", "[FAIL] iteration 1 exit=iteration timeout", "[ESCALATE]")
	kills := h.procs.liveKills()
	if len(kills) != 1 || kills[0].pid != h.startRecs()[0].pid {
		t.Fatalf("live kills %+v, want the agent", kills)
	}
	if ran := kills[0].at.Sub(h.clock.start); ran < 60*time.Second || ran > 61*time.Second {
		t.Errorf("agent killed after %v, want the 60s iteration timeout", ran)
	}
}

func TestSupervisionDoneFile(t *testing.T) {
	t.Run("present before the first run", func(t *testing.T) {
		h := supervisionHarness(t, setup{max: 3}, agentScript{}, ralph.DefaultSupervision(), supervisionBeforeFirstRun)
		if err := os.WriteFile(h.dir.DoneFile(), []byte("finished\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if code := h.run(h.config()); code != 0 {
			t.Errorf("Run = %d, want 0", code)
		}
		h.wantLines("task completed (DONE marker present), stopping loop")
		h.wantState(h.state(), ralph.StatusStopped, "done_file", 0)
		if p, _ := h.fake.Get(h.paneID); p.Starts != 1 {
			t.Errorf("%d programs started in the pane, want only the worker's own: no agent for the loop", p.Starts)
		}
		if in := h.fake.Inputs(); len(in) != 0 {
			t.Errorf("typed into the pane: %+v", in)
		}
		supervisionWantLog(h, "[DONE] DONE file present")
	})

	t.Run("created while the agent runs", func(t *testing.T) {
		var created time.Time
		h := supervisionHarness(t, setup{max: 3, inactivity: 1000}, agentScript{
			submit: func(tn turn) {
				supervisionAnimate(tn, supervisionSteadyScreen)
				tn.h.clock.After(10*time.Second, func() {
					created = tn.h.clock.Now()
					if err := os.WriteFile(tn.h.dir.DoneFile(), nil, 0o600); err != nil {
						tn.h.t.Error(err)
					}
				})
			},
		}, ralph.DefaultSupervision(), nil)
		if code := h.run(h.config()); code != 0 {
			t.Errorf("Run = %d, want 0", code)
		}
		h.wantLines("task completed (DONE marker present), stopping loop")
		st := h.state()
		h.wantState(st, ralph.StatusStopped, "done_file", 1)
		supervisionWantFailures(h, st, 0, 0)
		kills := h.procs.liveKills()
		if len(kills) != 1 || kills[0].pid != h.startRecs()[0].pid {
			t.Fatalf("live kills %+v, want the running agent", kills)
		}
		if late := kills[0].at.Sub(created); created.IsZero() || late < 0 || late > time.Second {
			t.Errorf("agent killed %v after DONE appeared, want within a status poll", late)
		}
		if n := len(h.startRecs()); n != 1 {
			t.Errorf("%d agents started, want 1", n)
		}
	})

	t.Run("a directory before the first run", func(t *testing.T) {
		h := supervisionHarness(t, setup{max: 3}, agentScript{}, ralph.DefaultSupervision(), supervisionBeforeFirstRun)
		if err := os.Mkdir(h.dir.DoneFile(), 0o700); err != nil {
			t.Fatal(err)
		}
		if code := h.run(h.config()); code != 1 {
			t.Errorf("Run = %d, want 1", code)
		}
		h.wantLines("fatal error: DONE is a directory: " + h.dir.DoneFile())
		h.wantState(h.state(), ralph.StatusFailed, "done_is_directory", 0)
		if p, _ := h.fake.Get(h.paneID); p.Starts != 1 {
			t.Errorf("%d programs started in the pane, want no agent for the loop", p.Starts)
		}
		supervisionWantLog(h, "[FAIL] DONE is a directory", "[ESCALATE]")
	})

	t.Run("a directory created while the agent runs", func(t *testing.T) {
		h := supervisionHarness(t, setup{max: 3, inactivity: 1000}, agentScript{
			submit: func(tn turn) {
				supervisionAnimate(tn, supervisionSteadyScreen)
				tn.h.clock.After(10*time.Second, func() {
					if err := os.Mkdir(tn.h.dir.DoneFile(), 0o700); err != nil {
						tn.h.t.Error(err)
					}
				})
			},
		}, ralph.DefaultSupervision(), nil)
		if code := h.run(h.config()); code != 1 {
			t.Errorf("Run = %d, want 1", code)
		}
		h.wantLines("fatal error: DONE is a directory: " + h.dir.DoneFile())
		h.wantState(h.state(), ralph.StatusFailed, "done_is_directory", 1)
		if k := h.procs.liveKills(); len(k) != 1 {
			t.Errorf("live kills %+v, want the running agent", k)
		}
		if n := len(h.startRecs()); n != 1 {
			t.Errorf("%d agents started, want 1", n)
		}
	})
}

func TestSupervisionWaitWithoutRestart(t *testing.T) {
	cases := []struct {
		name   string
		edit   func(*ralph.State)
		submit func(tn turn)
		pre    bool // WAIT_WITHOUT_RESTART present before the loop runs
		why    string
		starts int
		iter   int
	}{
		{name: "exit 42", submit: exitOnSubmit(ralph.ExitWaitWithoutRestart), why: "agent exited with 42", starts: 1, iter: 1},
		{name: "marker file", submit: func(tn turn) {
			if err := os.WriteFile(tn.h.dir.WaitFile(), nil, 0o600); err != nil {
				tn.h.t.Error(err)
			}
			// A clean exit would otherwise start the next iteration.
			tn.p.Exit(0)
		}, why: "WAIT_WITHOUT_RESTART file present", starts: 1, iter: 1},
		{name: "marker file before the first run", edit: supervisionBeforeFirstRun, pre: true,
			why: "WAIT_WITHOUT_RESTART file present", starts: 1, iter: 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := supervisionHarness(t, setup{max: 3}, agentScript{submit: c.submit}, ralph.DefaultSupervision(), c.edit)
			if c.pre {
				if err := os.WriteFile(h.dir.WaitFile(), nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if code := h.run(h.config()); code != 0 {
				t.Errorf("Run = %d, want 0", code)
			}
			h.wantLines("wait-without-restart signal detected (" + c.why + "), stopping loop")
			st := h.state()
			h.wantState(st, ralph.StatusStopped, "wait_without_restart", c.iter)
			supervisionWantFailures(h, st, 0, 0)
			if n := len(h.startRecs()); n != c.starts {
				t.Errorf("%d agents started, want %d", n, c.starts)
			}
			supervisionWantLog(h, "[WAIT] "+c.why)
		})
	}
}

func TestSupervisionFatalStartError(t *testing.T) {
	cases := []struct {
		name   string
		code   int
		file   string // exit file the wrapper leaves
		reason string
	}{
		{"executable not found", 127, "127\nexecutable not found: foo\n", "executable not found: foo"},
		{"permission denied, no detail", 126, "126\n", "permission denied (exit 126)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := supervisionHarness(t, setup{max: 5}, agentScript{
				submit: func(tn turn) {
					if err := os.WriteFile(tn.h.sd.ExitPath(loopName), []byte(c.file), 0o600); err != nil {
						tn.h.t.Error(err)
					}
					tn.p.Exit(c.code)
				},
			}, ralph.DefaultSupervision(), nil)
			if code := h.run(h.config()); code != 1 {
				t.Errorf("Run = %d, want 1", code)
			}
			h.wantLines("fatal error: " + c.reason + ", stopping loop (no retries)")
			supervisionWantOut(h, "fatal error: "+c.reason)
			supervisionWantNotOut(h, "retrying")
			h.wantState(h.state(), ralph.StatusFailed, "fatal_error", 1)
			if n := len(h.startRecs()); n != 1 {
				t.Errorf("%d agents started, want 1", n)
			}
			if w := h.clock.waits(ralph.PhaseBackoff); len(w) != 0 {
				t.Errorf("backed off %v before giving up, want no retry at all", w)
			}
		})
	}
}

func TestSupervisionMaxFailuresAndFixedBackoff(t *testing.T) {
	for _, maxFailures := range []int{2, 4} {
		t.Run(fmt.Sprintf("max_retries=%d", maxFailures), func(t *testing.T) {
			h := supervisionHarness(t, setup{max: 10}, agentScript{submit: exitOnSubmit(1)},
				ralph.SupervisionConfig{Enabled: true, MaxFailures: maxFailures, RetryBackoffSeconds: 7, HangTimeoutSeconds: 300}, nil)
			if code := h.run(h.config()); code != 1 {
				t.Errorf("Run = %d, want 1", code)
			}
			var want []string
			for i := 1; i < maxFailures; i++ {
				want = append(want,
					fmt.Sprintf("iteration %d failed (exit: 1), retrying in 7s (attempt %d/%d)", i, i, maxFailures),
					fmt.Sprintf("starting iteration %d/10", i+1))
			}
			want = append(want, fmt.Sprintf("%d consecutive failures, stopping loop", maxFailures))
			h.wantLines(want...)
			st := h.state()
			h.wantState(st, ralph.StatusFailed, "consecutive_failures", maxFailures)
			supervisionWantFailures(h, st, maxFailures, maxFailures)
			// Every wait is the configured one, never the doubling default.
			var waits []int
			for i := 1; i < maxFailures; i++ {
				waits = append(waits, 7)
			}
			if got := h.clock.waits(ralph.PhaseBackoff); !reflect.DeepEqual(got, durations(waits...)) {
				t.Errorf("backoff waits %v, want %v", got, durations(waits...))
			}
			if n := len(h.startRecs()); n != maxFailures {
				t.Errorf("%d agents started, want %d", n, maxFailures)
			}
			if rs := h.dir.LoadSupervision(); rs.ConsecutiveErrors != maxFailures || rs.Escalations != 1 {
				t.Errorf("regent-state consecutive_errors %d, escalations %d; want %d, 1", rs.ConsecutiveErrors, rs.Escalations, maxFailures)
			}
		})
	}
}

// supervisionWebhook is an escalation endpoint that records what it is sent.
type supervisionWebhook struct {
	srv    *httptest.Server
	mu     sync.Mutex
	posts  []supervisionPost
	status int
}

type supervisionPost struct {
	method, contentType string
	body                []byte
}

func newSupervisionWebhook(t *testing.T, status int) *supervisionWebhook {
	w := &supervisionWebhook{status: status}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.mu.Lock()
		w.posts = append(w.posts, supervisionPost{method: r.Method, contentType: r.Header.Get("Content-Type"), body: body})
		w.mu.Unlock()
		rw.WriteHeader(w.status)
	}))
	t.Cleanup(w.srv.Close)
	return w
}

func (w *supervisionWebhook) received() []supervisionPost {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]supervisionPost(nil), w.posts...)
}

// supervisionFailingWithLastWords exits 1 after printing a line the escalation should carry.
func supervisionFailingWithLastWords(tn turn) {
	tn.p.SetScreen(claudeIdle(append(echo(tn.prompt), "", fmt.Sprintf("● Error: cannot reach the build cache (iteration %d)", tn.it))...))
	tn.p.Exit(1)
}

func TestSupervisionEscalationWebhook(t *testing.T) {
	t.Run("posts the report", func(t *testing.T) {
		hook := newSupervisionWebhook(t, http.StatusOK)
		h := supervisionHarness(t, setup{max: 10}, agentScript{submit: supervisionFailingWithLastWords},
			ralph.SupervisionConfig{Enabled: true, MaxFailures: 2, RetryBackoffSeconds: 1, HangTimeoutSeconds: 300, Webhook: hook.srv.URL}, nil)
		if code := h.run(h.config()); code != 1 {
			t.Errorf("Run = %d, want 1", code)
		}
		h.wantState(h.state(), ralph.StatusFailed, "consecutive_failures", 2)
		wantSupervisionLines(h, "agent exited (exit 1) — retrying in 1s (attempt 1/2)", "Restarting the agent (iteration 2/10)...",
			"2 consecutive failures (last exit: 1) — escalated to webhook")
		posts := hook.received()
		if len(posts) != 1 {
			t.Fatalf("%d webhook posts, want 1", len(posts))
		}
		p := posts[0]
		if p.method != http.MethodPost || p.contentType != "application/json" {
			t.Errorf("webhook got %s with Content-Type %q, want a JSON POST", p.method, p.contentType)
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(p.body, &raw); err != nil {
			t.Fatalf("webhook body is not a JSON object: %v\n%s", err, p.body)
		}
		for _, k := range []string{"worker", "iteration", "reason", "status", "last_lines"} {
			if _, ok := raw[k]; !ok {
				t.Errorf("webhook body lacks %q: %s", k, p.body)
			}
		}
		if ll := strings.TrimSpace(string(raw["last_lines"])); !strings.HasPrefix(ll, "[") {
			t.Errorf("last_lines is %s, want an array", ll)
		}
		var e Notification
		if err := json.Unmarshal(p.body, &e); err != nil {
			t.Fatal(err)
		}
		if e.Worker != loopName || e.Iteration != 2 || e.Status != ralph.StatusFailed.String() || e.Reason != "2 consecutive failures (last exit: 1)" {
			t.Errorf("webhook body %+v, want worker %q, iteration 2, status failed, the failure count as reason", e, loopName)
		}
		if !contains(e.LastLines, "● Error: cannot reach the build cache (iteration 2)") {
			t.Errorf("last_lines %q lack the failed agent's last output", e.LastLines)
		}
		if rs := h.dir.LoadSupervision(); rs.Escalations != 1 {
			t.Errorf("regent-state escalations %d, want 1", rs.Escalations)
		}
	})

	t.Run("endpoint answers 500", func(t *testing.T) {
		hook := newSupervisionWebhook(t, http.StatusInternalServerError)
		h := supervisionHarness(t, setup{max: 10}, agentScript{submit: supervisionFailingWithLastWords},
			ralph.SupervisionConfig{Enabled: true, MaxFailures: 2, RetryBackoffSeconds: 1, HangTimeoutSeconds: 300, Webhook: hook.srv.URL}, nil)
		if code := h.run(h.config()); code != 1 {
			t.Errorf("Run = %d, want 1", code)
		}
		h.wantLines(
			"iteration 1 failed (exit: 1), retrying in 1s (attempt 1/2)",
			"starting iteration 2/10",
			"2 consecutive failures, stopping loop",
		)
		supervisionWantOut(h, "webhook failed", "500")
		h.wantState(h.state(), ralph.StatusFailed, "consecutive_failures", 2)
		if n := len(hook.received()); n != 1 {
			t.Errorf("%d webhook posts, want 1", n)
		}
	})
}

func TestSupervisionDisabled(t *testing.T) {
	t.Run("no hang detection", func(t *testing.T) {
		h := supervisionHarness(t, setup{max: 1, inactivity: 1000}, agentScript{
			submit: func(tn turn) {
				supervisionAnimate(tn, supervisionHungScreen)
				// Three minutes: six hang timeouts, three iteration timeouts.
				tn.exitAfter(3*time.Minute, 0, claudeIdle(append(echo(tn.prompt), "", "● Finally done.")...))
			},
		}, ralph.SupervisionConfig{Enabled: false, HangTimeoutSeconds: 30, IterationTimeout: 60}, nil)
		if code := h.run(h.config()); code != 0 {
			t.Errorf("Run = %d, want 0", code)
		}
		// Unsupervised, the animated agent runs until it exits by itself.
		h.wantLines(
			"iteration 1 completed (exit: 0, duration: 3m 0s)",
			"max iterations (1) reached",
		)
		supervisionWantNotOut(h, "hung", "exceeded")
		if k := h.procs.liveKills(); len(k) != 0 {
			t.Errorf("live kills %+v, want none", k)
		}
		if rs := h.dir.LoadSupervision(); rs.Hangs != 0 {
			t.Errorf("regent-state hangs %d, want 0", rs.Hangs)
		}
	})

	t.Run("max failures defaults to 5", func(t *testing.T) {
		hook := newSupervisionWebhook(t, http.StatusOK)
		h := supervisionHarness(t, setup{max: 10}, agentScript{submit: exitOnSubmit(1)},
			ralph.SupervisionConfig{Enabled: false, RetryBackoffSeconds: 7, Webhook: hook.srv.URL}, nil)
		if code := h.run(h.config()); code != 1 {
			t.Errorf("Run = %d, want 1", code)
		}
		h.wantLines(fiveFailureLines...)
		st := h.state()
		h.wantState(st, ralph.StatusFailed, "consecutive_failures", 5)
		supervisionWantFailures(h, st, 5, 5)
		// Supervision's own backoff and webhook are off with it.
		if got, want := h.clock.waits(ralph.PhaseBackoff), durations(1, 2, 4, 8); !reflect.DeepEqual(got, want) {
			t.Errorf("backoff waits %v, want %v", got, want)
		}
		if n := len(hook.received()); n != 0 {
			t.Errorf("%d webhook posts from an unsupervised loop, want 0", n)
		}
	})
}

// supervisionGit runs git in dir (identity and configuration come from the environment
// supervisionRepo sets).
func supervisionGit(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// supervisionCommit writes files (name → content) and commits them with message msg.
func supervisionCommit(dir, msg string, files map[string]string) (string, error) {
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return "", err
		}
		if _, err := supervisionGit(dir, "add", name); err != nil {
			return "", err
		}
	}
	if _, err := supervisionGit(dir, "commit", "-q", "-m", msg); err != nil {
		return "", err
	}
	return supervisionGit(dir, "rev-parse", "HEAD")
}

// supervisionRepo turns dir into a repository with a base commit whose suite (status.txt) passes
// and a commit made before the loop, whose status.txt is preStatus. It returns that commit.
func supervisionRepo(t *testing.T, dir, preStatus string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	// Both the test's commits and supervision's reverts get this identity, and no user or
	// system configuration (signing, hooks, templates) leaks in.
	empty := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", empty)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_AUTHOR_NAME", "Ralph")
	t.Setenv("GIT_AUTHOR_EMAIL", "ralph@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Ralph")
	t.Setenv("GIT_COMMITTER_EMAIL", "ralph@example.com")
	if _, err := supervisionGit(dir, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	if _, err := supervisionCommit(dir, "base", map[string]string{"status.txt": "ok\n", ".gitignore": "PROMPT.md\n"}); err != nil {
		t.Fatal(err)
	}
	pre, err := supervisionCommit(dir, "pre-loop work", map[string]string{"pre.txt": "made before the loop\n", "status.txt": preStatus})
	if err != nil {
		t.Fatal(err)
	}
	return pre
}

func supervisionSubjects(t *testing.T, dir string) []string {
	t.Helper()
	out, err := supervisionGit(dir, "log", "--format=%s")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(out, "\n")
}

// supervisionGated is a one-iteration loop whose worker directory is a repository (see
// supervisionRepo) and whose agent runs agent there when it gets the prompt, then exits 0. The
// loop records an iteration's start commit only for iterations it starts, so the adopted
// first one is given the pre-loop commit here. It returns the repository and that commit.
func supervisionGated(t *testing.T, testCommand, preStatus string, agent func(dir string) error) (h *harness, dir, pre string) {
	t.Helper()
	h = supervisionHarness(t, setup{max: 1}, agentScript{
		submit: func(tn turn) {
			if err := agent(dir); err != nil {
				tn.h.t.Error(err)
			}
			tn.p.Exit(0)
		},
	}, ralph.SupervisionConfig{Enabled: true, TestCommand: testCommand, RollbackOnTestFailure: true, HangTimeoutSeconds: 300}, nil)
	dir = filepath.Dir(h.promptPath)
	pre = supervisionRepo(t, dir, preStatus)
	if _, err := h.dir.Update(func(st *ralph.State) error { st.IterationStartCommit = pre; return nil }); err != nil {
		t.Fatal(err)
	}
	return h, dir, pre
}

func TestSupervisionTestGatedRollback(t *testing.T) {
	const suite = "grep -qx ok status.txt"

	t.Run("passing commits kept", func(t *testing.T) {
		var made string
		h, dir, _ := supervisionGated(t, suite, "ok\n", func(dir string) (err error) {
			if _, err = supervisionCommit(dir, "add feature", map[string]string{"feature.txt": "new\n"}); err != nil {
				return err
			}
			made, err = supervisionCommit(dir, "document feature", map[string]string{"FEATURE.md": "docs\n"})
			return err
		})
		if code := h.run(h.config()); code != 0 {
			t.Errorf("Run = %d, want 0", code)
		}
		wantSupervisionLines(h, "Tests passed ✅ — commit "+ralph.ShortCommit(made)+" kept")
		if head := git.Head(dir); head != made {
			t.Errorf("HEAD %s, want the agent's last commit %s", head, made)
		}
		h.wantState(h.state(), ralph.StatusStopped, "max_iterations", 1)
		if rs := h.dir.LoadSupervision(); rs.LastCommit != ralph.ShortCommit(made) || rs.Rollbacks != 0 {
			t.Errorf("regent-state last_commit %q, rollbacks %d; want %q, 0", rs.LastCommit, rs.Rollbacks, ralph.ShortCommit(made))
		}
	})

	t.Run("breaking commits reverted newest first", func(t *testing.T) {
		var first, second string
		h, dir, _ := supervisionGated(t, suite, "ok\n", func(dir string) (err error) {
			if first, err = supervisionCommit(dir, "add helper", map[string]string{"helper.txt": "helper\n"}); err != nil {
				return err
			}
			second, err = supervisionCommit(dir, "break the suite", map[string]string{"status.txt": "broken\n"})
			return err
		})
		if code := h.run(h.config()); code != 0 {
			t.Errorf("Run = %d, want 0", code)
		}
		wantSupervisionLines(h,
			"Tests failed ❌ — reverting commit "+ralph.ShortCommit(second),
			"Tests failed ❌ — reverting commit "+ralph.ShortCommit(first),
		)
		want := []string{`Revert "add helper"`, `Revert "break the suite"`, "break the suite", "add helper", "pre-loop work", "base"}
		if got := supervisionSubjects(t, dir); !reflect.DeepEqual(got, want) {
			t.Errorf("git log %q, want %q", got, want)
		}
		// Each revert names the commit it undoes, the newest one undone first.
		bodies, err := supervisionGit(dir, "log", "-2", "--format=%b")
		if err != nil {
			t.Fatal(err)
		}
		if i, j := strings.Index(bodies, first), strings.Index(bodies, second); i < 0 || j < 0 || i > j {
			t.Errorf("revert messages do not undo %s after %s:\n%s", ralph.ShortCommit(first), ralph.ShortCommit(second), bodies)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "status.txt")); string(b) != "ok\n" {
			t.Errorf("status.txt %q after the rollback, want the passing %q", b, "ok\n")
		}
		if _, err := os.Stat(filepath.Join(dir, "helper.txt")); !os.IsNotExist(err) {
			t.Errorf("helper.txt still present after its commit was reverted (%v)", err)
		}
		// The commit made before the loop is not supervision's to touch.
		if b, err := os.ReadFile(filepath.Join(dir, "pre.txt")); err != nil || string(b) != "made before the loop\n" {
			t.Errorf("pre.txt %q (%v), want the pre-loop commit's content", b, err)
		}
		supervisionWantLog(h, "[ROLLBACK] reverted "+ralph.ShortCommit(second), "[ROLLBACK] reverted "+ralph.ShortCommit(first))
		log := supervisionIterationsLog(h)
		if strings.Index(log, "reverted "+ralph.ShortCommit(second)) > strings.Index(log, "reverted "+ralph.ShortCommit(first)) {
			t.Errorf("rollbacks logged oldest first:\n%s", log)
		}
		if rs := h.dir.LoadSupervision(); rs.Rollbacks != 2 {
			t.Errorf("regent-state rollbacks %d, want 2", rs.Rollbacks)
		}
		st := h.state()
		h.wantState(st, ralph.StatusStopped, "max_iterations", 1)
	})

	t.Run("test command cannot run", func(t *testing.T) {
		var made string
		h, dir, _ := supervisionGated(t, "no-such-binary-xyz", "ok\n", func(dir string) (err error) {
			made, err = supervisionCommit(dir, "break the suite", map[string]string{"status.txt": "broken\n"})
			return err
		})
		if code := h.run(h.config()); code != 1 {
			t.Errorf("Run = %d, want 1", code)
		}
		h.wantState(h.state(), ralph.StatusFailed, "test_command_error", 1)
		supervisionWantOut(h, "test command cannot run")
		supervisionWantNotOut(h, "reverting")
		if head := git.Head(dir); head != made {
			t.Errorf("HEAD %s, want the agent's commit %s left alone", head, made)
		}
		if got := supervisionSubjects(t, dir); got[0] != "break the suite" {
			t.Errorf("git log %q, want nothing reverted", got)
		}
		if rs := h.dir.LoadSupervision(); rs.Rollbacks != 0 {
			t.Errorf("regent-state rollbacks %d, want 0", rs.Rollbacks)
		}
	})

	t.Run("suite already failing", func(t *testing.T) {
		var made string
		// The pre-loop commit broke the suite; the iteration starts from there.
		h, dir, pre := supervisionGated(t, suite, "broken\n", func(dir string) (err error) {
			made, err = supervisionCommit(dir, "add feature", map[string]string{"feature.txt": "new\n"})
			return err
		})
		if code := h.run(h.config()); code != 0 {
			t.Errorf("Run = %d, want 0", code)
		}
		wantSupervisionLines(h, "Tests failed, but they were already failing before this iteration (at "+ralph.ShortCommit(pre)+") — commits kept")
		supervisionWantNotOut(h, "reverting")
		if head := git.Head(dir); head != made {
			t.Errorf("HEAD %s, want the agent's commit %s kept", head, made)
		}
		if got, want := supervisionSubjects(t, dir), []string{"add feature", "pre-loop work", "base"}; !reflect.DeepEqual(got, want) {
			t.Errorf("git log %q, want %q", got, want)
		}
		if rs := h.dir.LoadSupervision(); rs.Rollbacks != 0 {
			t.Errorf("regent-state rollbacks %d, want 0", rs.Rollbacks)
		}
	})
}
