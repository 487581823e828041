package driver

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

func TestLoopRunsMaxIterations(t *testing.T) {
	prompt := "Study PLAN.md and do the next task.\n"
	h := newHarness(t, setup{max: 3, prompt: prompt}, agentScript{
		submit: func(tn turn) {
			if tn.it == 1 {
				// Longer than the inactivity timeout: steady output must keep it alive.
				tn.work(3*time.Minute+42*time.Second, 0)
				return
			}
			tn.p.Exit(0)
		},
	})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines(
		"iteration 1 completed (exit: 0, duration: 3m 42s)",
		"starting iteration 2/3",
		"iteration 2 completed (exit: 0, duration: 0s)",
		"starting iteration 3/3",
		"iteration 3 completed (exit: 0, duration: 0s)",
		"max iterations (3) reached",
	)
	st := h.state()
	h.wantState(st, ralph.StatusStopped, "max_iterations", 3)
	if st.ConsecutiveFailures != 0 || st.TotalFailures != 0 {
		t.Errorf("failures %d/%d, want 0/0", st.ConsecutiveFailures, st.TotalFailures)
	}

	// The prompt is typed once per iteration as a bracketed paste, and Enter follows each.
	var inputs []string
	for _, in := range h.fake.Inputs() {
		if in.PaneID != h.paneID {
			t.Errorf("input sent to pane %s, want %s", in.PaneID, h.paneID)
		}
		if in.Paste {
			// The trailing newline is not pasted: Enter submits.
			if in.Text != strings.TrimRight(prompt, "\n") || !in.Bracketed {
				t.Errorf("pasted %q (bracketed %v), want the prompt %q bracketed", in.Text, in.Bracketed, prompt)
			}
			inputs = append(inputs, "paste")
		} else {
			inputs = append(inputs, in.Text)
		}
	}
	if want := []string{"paste", "Enter", "paste", "Enter", "paste", "Enter"}; !reflect.DeepEqual(inputs, want) {
		t.Errorf("inputs %v, want %v", inputs, want)
	}

	// Each iteration is a fresh agent in the same pane, told which iteration it is.
	starts := h.startRecs()
	if len(starts) != 3 {
		t.Fatalf("%d agents started, want 3", len(starts))
	}
	// Claude Code is given a session id of swarm's, a new one each time, to find its
	// transcript by.
	sessions := map[string]bool{}
	for _, s := range starts[1:] {
		argv := s.spec.Argv
		if len(argv) != 3 || argv[0] != "claude" || argv[1] != "--session-id" || uuid.Validate(argv[2]) != nil || sessions[argv[2]] {
			t.Errorf("iteration %d argv %q, want [claude --session-id <a new uuid>]", s.iteration, argv)
		} else {
			sessions[argv[2]] = true
		}
		if len(s.spec.Env) != 0 {
			t.Errorf("iteration %d passes an environment to tmux: %q", s.iteration, s.spec.Env)
		}
	}
	if ids := h.fake.PaneIDs(); len(ids) != 1 {
		t.Errorf("panes %v, want the worker's one pane", ids)
	}
	// Agents that exit by themselves are never signalled while they run.
	if k := h.procs.liveKills(); len(k) != 0 {
		t.Errorf("running agents killed: %+v", k)
	}

	ws, err := h.sd.LoadWorkers(nil)
	if err != nil {
		t.Fatal(err)
	}
	w := ws.Get(loopName)
	if w.Metadata["ralph_iteration"] != float64(3) || w.PID != starts[2].pid || w.Tmux.PaneID != h.paneID {
		t.Errorf("worker record: iteration %v, pid %d, pane %s; want 3, %d, %s",
			w.Metadata["ralph_iteration"], w.PID, w.Tmux.PaneID, starts[2].pid, h.paneID)
	}
	log, err := os.ReadFile(h.dir.IterationsLog())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[END] iteration 1 exit=0 duration=3m42s", "[START] iteration 2/3", "[START] iteration 3/3"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("iterations.log lacks %q:\n%s", want, log)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// fiveFailureLines is what a 10-iteration loop says when every agent exits 1, under the
// default backoff and failure limit.
var fiveFailureLines = []string{
	"iteration 1 failed (exit: 1), retrying in 1s (attempt 1/5)",
	"starting iteration 2/10",
	"iteration 2 failed (exit: 1), retrying in 2s (attempt 2/5)",
	"starting iteration 3/10",
	"iteration 3 failed (exit: 1), retrying in 4s (attempt 3/5)",
	"starting iteration 4/10",
	"iteration 4 failed (exit: 1), retrying in 8s (attempt 4/5)",
	"starting iteration 5/10",
	"5 consecutive failures, stopping loop",
}

func TestLoopBacksOffThenFailsAfterFiveFailures(t *testing.T) {
	for _, poll := range []time.Duration{0, time.Hour} {
		t.Run(fmt.Sprintf("StatusPoll=%v", poll), func(t *testing.T) {
			h := newHarness(t, setup{max: 10}, agentScript{submit: exitOnSubmit(1)})
			cfg := h.config()
			cfg.StatusPoll = poll
			if code := h.run(cfg); code != 1 {
				t.Errorf("Run = %d, want 1", code)
			}
			h.wantLines(fiveFailureLines...)
			st := h.state()
			h.wantState(st, ralph.StatusFailed, "consecutive_failures", 5)
			if st.ConsecutiveFailures != 5 || st.TotalFailures != 5 {
				t.Errorf("failures %d/%d, want 5/5", st.ConsecutiveFailures, st.TotalFailures)
			}
			if got, want := h.clock.waits(ralph.PhaseBackoff), durations(1, 2, 4, 8); !reflect.DeepEqual(got, want) {
				t.Errorf("backoff waits %v, want %v", got, want)
			}
			if poll == time.Hour {
				// Nothing else in the loop sleeps that long: each wait is one sleep.
				if got, want := h.clock.long(), durations(1, 2, 4, 8); !reflect.DeepEqual(got, want) {
					t.Errorf("long sleeps %v, want %v", got, want)
				}
			}
			if n := len(h.startRecs()); n != 5 {
				t.Errorf("%d agents started, want 5", n)
			}
		})
	}
}

func TestLoopSuccessResetsConsecutiveFailures(t *testing.T) {
	codes := map[int]int{1: 1, 2: 1, 3: 0, 4: 1, 5: 0}
	h := newHarness(t, setup{max: 5}, agentScript{
		submit: func(tn turn) { tn.p.Exit(codes[tn.it]) },
	})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines(
		"iteration 1 failed (exit: 1), retrying in 1s (attempt 1/5)",
		"starting iteration 2/5",
		"iteration 2 failed (exit: 1), retrying in 2s (attempt 2/5)",
		"starting iteration 3/5",
		"iteration 3 completed (exit: 0, duration: 0s)",
		"starting iteration 4/5",
		// The success reset the count: back to the first attempt and the shortest wait.
		"iteration 4 failed (exit: 1), retrying in 1s (attempt 1/5)",
		"starting iteration 5/5",
		"iteration 5 completed (exit: 0, duration: 0s)",
		"max iterations (5) reached",
	)
	st := h.state()
	h.wantState(st, ralph.StatusStopped, "max_iterations", 5)
	if st.ConsecutiveFailures != 0 || st.TotalFailures != 3 {
		t.Errorf("failures %d/%d, want 0/3", st.ConsecutiveFailures, st.TotalFailures)
	}
	if got, want := h.clock.waits(ralph.PhaseBackoff), durations(1, 2, 1); !reflect.DeepEqual(got, want) {
		t.Errorf("backoff waits %v, want %v", got, want)
	}
}

func TestLoopInactivityRestarts(t *testing.T) {
	cases := []struct {
		name   string
		stored int // inactivity_timeout in the state; 0 means the default
		want   time.Duration
	}{
		{"configured", 90, 90 * time.Second},
		{"default", -1, 60 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, setup{max: 2, inactivity: c.stored}, agentScript{
				submit: func(tn turn) {
					if tn.it == 1 {
						// Answers, then sits at its prompt for good.
						tn.p.SetScreen(claudeIdle(append(echo(tn.prompt), "", "● I had a look around.")...))
						return
					}
					tn.p.Exit(0)
				},
			})
			if code := h.run(h.config()); code != 0 {
				t.Errorf("Run = %d, want 0", code)
			}
			h.wantLines(
				fmt.Sprintf("inactivity timeout (%ds), restarting", int(c.want.Seconds())),
				"starting iteration 2/2",
				"iteration 2 completed (exit: 0, duration: 0s)",
				"max iterations (2) reached",
			)
			starts, submits := h.startRecs(), h.submitRecs()
			if len(starts) != 2 || len(submits) != 2 {
				t.Fatalf("%d starts, %d submits; want 2 each", len(starts), len(submits))
			}
			kills := h.procs.liveKills()
			if len(kills) != 1 || kills[0].pid != starts[0].pid {
				t.Fatalf("live kills %+v, want iteration 1's agent (pid %d)", kills, starts[0].pid)
			}
			// Killed a screen poll after the timeout, not earlier and not much later.
			if quiet := kills[0].at.Sub(submits[0].at); quiet < c.want || quiet > c.want+3*time.Second {
				t.Errorf("agent killed after %v of quiet, want %v", quiet, c.want)
			}
			if kills[0].grace <= 0 {
				t.Errorf("killed with grace %v, want a graceful kill", kills[0].grace)
			}
			if kills[0].at.After(starts[1].at) {
				t.Error("next iteration started before the quiet agent was killed")
			}
			// Its group is waited for once: the next start does not wait for it again.
			if n := h.procs.killsOf(starts[0].pid); n != 1 {
				t.Errorf("iteration 1's agent was ended %d times, want once", n)
			}
			st := h.state()
			h.wantState(st, ralph.StatusStopped, "max_iterations", 2)
			if st.TotalFailures != 0 {
				t.Errorf("total failures %d: an inactive agent is restarted, not counted as failed", st.TotalFailures)
			}
		})
	}
}

func TestLoopDonePattern(t *testing.T) {
	prompt := "Work through PLAN.md and print ALL DONE when finished.\n"
	doneScreen := func(tn turn) string {
		return claudeIdle(append(echo(tn.prompt), "", "● Every task is finished.", "", "● ALL DONE")...)
	}
	cases := []struct {
		name string
		// finish is what the agent does in iteration 2 once it is done.
		finish   func(tn turn)
		killLive bool
	}{
		{"agent keeps running", func(tn turn) {
			screen := doneScreen(tn)
			tn.later(30*time.Second, func(q *tmuxtest.FakePane) { q.SetScreen(screen) })
		}, true},
		{"agent exits right after", func(tn turn) { tn.exitAfter(30*time.Second, 0, doneScreen(tn)) }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, setup{max: 5, prompt: prompt, donePattern: "ALL DONE"}, agentScript{
				submit: func(tn turn) {
					if tn.it == 1 {
						// The echo of the prompt names the marker; that must not count.
						tn.exitAfter(20*time.Second, 0, claudeIdle(append(echo(tn.prompt), "", "● Finished one task.")...))
						return
					}
					c.finish(tn)
				},
			})
			if code := h.run(h.config()); code != 0 {
				t.Errorf("Run = %d, want 0", code)
			}
			h.wantLines(
				"iteration 1 completed (exit: 0, duration: 20s)",
				"starting iteration 2/5",
				"done pattern matched, stopping loop",
			)
			h.wantState(h.state(), ralph.StatusStopped, "done_pattern", 2)
			starts := h.startRecs()
			kills := h.procs.liveKills()
			if c.killLive {
				// A finished interactive agent would otherwise idle in its pane forever.
				if len(kills) != 1 || kills[0].pid != starts[1].pid {
					t.Errorf("live kills %+v, want iteration 2's agent (pid %d)", kills, starts[1].pid)
				}
			} else if len(kills) != 0 {
				t.Errorf("live kills %+v, want none", kills)
			}
			if h.fake.Alive(starts[len(starts)-1].pid) {
				t.Error("agent still running after the loop stopped")
			}
			screen, err := os.ReadFile(h.dir.ScreenPath(2))
			if err != nil || !strings.Contains(string(screen), "● ALL DONE") {
				t.Errorf("iteration 2 screen not kept (%v):\n%s", err, screen)
			}
		})
	}
}
