package driver

import (
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

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
