package driver

import (
	"fmt"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
)

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
