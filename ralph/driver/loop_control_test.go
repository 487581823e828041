package driver

import (
	"fmt"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
)

func TestLoopPauseWhileWorking(t *testing.T) {
	h := newHarness(t, setup{max: 3}, agentScript{
		submit: func(tn turn) {
			tn.h.clock.After(10*time.Second, func() {
				if _, err := tn.h.dir.Update(func(s *ralph.State) error { s.Status = ralph.StatusPaused; return nil }); err != nil {
					tn.h.t.Error(err)
				}
			})
			tn.work(30*time.Second, 0)
		},
	})
	lock, ok, err := state.TryLock(h.dir.MonitorLockPath())
	if err != nil || !ok {
		t.Fatalf("TryLock: ok %v, err %v", ok, err)
	}
	defer lock.Unlock()
	if !state.IsLocked(h.dir.MonitorLockPath()) {
		t.Fatal("monitor lock not seen as held; the release check below would prove nothing")
	}
	cfg := h.config()
	cfg.MonitorLock = lock
	if code := h.run(cfg); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	// The paused loop lets the running agent finish, then starts nothing new.
	h.wantLines("iteration 1 completed (exit: 0, duration: 30s)")
	st := h.state()
	h.wantState(st, ralph.StatusPaused, "", 1)
	if st.Phase != ralph.PhaseEnded {
		t.Errorf("phase %q, want %q", st.Phase, ralph.PhaseEnded)
	}
	if n := len(h.startRecs()); n != 1 {
		t.Errorf("%d agents started, want 1", n)
	}
	if k := h.procs.liveKills(); len(k) != 0 {
		t.Errorf("paused loop killed its running agent: %+v", k)
	}
	l, ok, err := state.TryLock(h.dir.MonitorLockPath())
	if err != nil || !ok {
		t.Fatalf("monitor lock still held after a paused loop ended (ok %v, err %v)", ok, err)
	}
	l.Unlock()
}

func TestLoopStoppedWhileWorking(t *testing.T) {
	for _, killAgent := range []bool{false, true} {
		t.Run(fmt.Sprintf("agent killed=%v", killAgent), func(t *testing.T) {
			var stoppedAt time.Time
			h := newHarness(t, setup{max: 3}, agentScript{
				submit: func(tn turn) {
					pid := tn.p.PID
					tn.h.clock.After(10*time.Second, func() {
						// What `swarm kill` does: mark the loop stopped, end the agent.
						stoppedAt = tn.h.clock.Now()
						_, err := tn.h.dir.Update(func(s *ralph.State) error {
							s.Status, s.ExitReason = ralph.StatusStopped, "killed"
							return nil
						})
						if err != nil {
							tn.h.t.Error(err)
						}
						if killAgent {
							tn.h.fake.KillPID(pid, 143)
						}
					})
				},
			})
			if code := h.run(h.config()); code != 0 {
				t.Errorf("Run = %d, want 0", code)
			}
			h.wantLines()
			if late := h.clock.Now().Sub(stoppedAt); stoppedAt.IsZero() || late > time.Second {
				t.Errorf("loop ended %v after the stop, want within a status poll", late)
			}
			st := h.state()
			h.wantState(st, ralph.StatusStopped, "killed", 1)
			if st.TotalFailures != 0 {
				t.Errorf("total failures %d, want 0: a killed agent is not a failed iteration", st.TotalFailures)
			}
			if n := len(h.startRecs()); n != 1 {
				t.Errorf("%d agents started, want 1", n)
			}
		})
	}
}

func TestLoopPauseDuringBackoffEndsWait(t *testing.T) {
	// Three failures already: the next one waits 8s.
	h := newHarness(t, setup{max: 10, consecutive: 3}, agentScript{submit: exitOnSubmit(1)})
	paused := false
	h.clock.onSleep = func(tag string) {
		if tag != ralph.PhaseBackoff.String() || paused {
			return
		}
		paused = true
		if _, err := h.dir.Update(func(s *ralph.State) error { s.Status = ralph.StatusPaused; return nil }); err != nil {
			t.Error(err)
		}
	}
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines("iteration 1 failed (exit: 1), retrying in 8s (attempt 4/5)")
	waits := h.clock.waits(ralph.PhaseBackoff)
	if len(waits) != 1 || waits[0] > time.Second {
		t.Errorf("backoff waits %v, want one cut short by the pause", waits)
	}
	if total := h.clock.total(); total > 2*time.Second {
		t.Errorf("slept %v in all, want far less than the 8s backoff", total)
	}
	st := h.state()
	h.wantState(st, ralph.StatusPaused, "", 1)
	if st.Phase != ralph.PhaseEnded || st.BackoffUntil != "" {
		t.Errorf("phase %q, backoff_until %q; want %q and none", st.Phase, st.BackoffUntil, ralph.PhaseEnded)
	}
	if st.ConsecutiveFailures != 4 {
		t.Errorf("consecutive failures %d, want 4", st.ConsecutiveFailures)
	}
	if n := len(h.startRecs()); n != 1 {
		t.Errorf("%d agents started, want 1", n)
	}
}

func TestLoopDialogBlocksPrompt(t *testing.T) {
	dialogScreen := readBypassDialog(t)
	h := newHarness(t, setup{max: 2, readyTimeout: 30}, agentScript{
		start: func(tn turn) { tn.p.SetScreen(dialogScreen) },
	})
	// Every iteration failed: that is a failed loop, not a completed one.
	if code := h.run(h.config()); code != 1 {
		t.Errorf("Run = %d, want 1", code)
	}
	desc := screen.DialogDescription("bypass-permissions")
	waiting := "agent is waiting at " + desc + "; answer it with 'swarm attach agent' (the prompt is not typed into a dialog)"
	notReady := "agent not ready after 30s (blocked by " + desc + ")"
	h.wantLines(
		waiting,
		notReady,
		"iteration 1 failed (exit: ready timeout), retrying in 1s (attempt 1/5)",
		"starting iteration 2/2",
		waiting,
		notReady,
		"iteration 2 failed (exit: ready timeout)",
		"max iterations reached (2) and every iteration failed",
	)
	if in := h.fake.Inputs(); len(in) != 0 {
		t.Errorf("typed into a dialog: %+v", in)
	}
	st := h.state()
	if st.BlockedBy != "bypass-permissions" {
		t.Errorf("blocked_by %q, want bypass-permissions", st.BlockedBy)
	}
	if st.ConsecutiveFailures != 2 || st.TotalFailures != 2 {
		t.Errorf("failures %d/%d, want 2/2", st.ConsecutiveFailures, st.TotalFailures)
	}
	starts, kills := h.startRecs(), h.procs.liveKills()
	if len(kills) != 2 {
		t.Fatalf("live kills %+v, want both blocked agents", kills)
	}
	for i, k := range kills {
		if k.pid != starts[i].pid {
			t.Errorf("kill %d hit pid %d, want %d", i, k.pid, starts[i].pid)
		}
		if waited := k.at.Sub(starts[i].at); waited < 30*time.Second || waited > 31*time.Second {
			t.Errorf("iteration %d agent killed after %v, want the 30s ready timeout", i+1, waited)
		}
	}
}

func TestLoopAdoptsWorkingIteration(t *testing.T) {
	// A monitor restarted while iteration 2 runs: the agent is busy and nobody types again.
	prompt := "Study PLAN.md and do the next task.\n"
	h := newHarness(t, setup{max: 3, iteration: 2, phase: ralph.PhaseWorking, prompt: prompt, startedAgo: 30 * time.Second}, agentScript{
		start: func(tn turn) {
			if tn.it == 2 {
				// Between two steps the agent sits at a prompt that would take input.
				tn.p.SetScreen(claudeIdle(append(echo(prompt), "", "● Step 1 done.")...))
				tn.exitAfter(20*time.Second, 0, claudeIdle(append(echo(prompt), "", "● Done.")...))
				return
			}
			tn.p.SetScreen(claudeIdle())
		},
		submit: exitOnSubmit(0),
	})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines(
		"iteration 2 completed (exit: 0, duration: 50s)",
		"starting iteration 3/3",
		"iteration 3 completed (exit: 0, duration: 0s)",
		"max iterations (3) reached",
	)
	h.wantState(h.state(), ralph.StatusStopped, "max_iterations", 3)
	if subs := h.submitRecs(); len(subs) != 1 || subs[0].iteration != 3 {
		t.Errorf("prompts submitted %+v, want only iteration 3's", subs)
	}
	if p := h.fake.Pastes(h.paneID); len(p) != 1 {
		t.Errorf("%d pastes, want 1 (iteration 3)", len(p))
	}
}

func TestLoopPromptFileDeleted(t *testing.T) {
	h := newHarness(t, setup{max: 3}, agentScript{
		submit: func(tn turn) {
			if err := os.Remove(tn.h.promptPath); err != nil {
				tn.h.t.Error(err)
			}
			tn.p.Exit(0)
		},
	})
	if code := h.run(h.config()); code != 1 {
		t.Errorf("Run = %d, want 1", code)
	}
	h.wantLines(
		"iteration 1 completed (exit: 0, duration: 0s)",
		"swarm: error: prompt file not found: "+h.promptPath,
	)
	h.wantState(h.state(), ralph.StatusFailed, "prompt_unreadable", 1)
	if n := len(h.startRecs()); n != 1 {
		t.Errorf("%d agents started, want 1", n)
	}
}

func TestLoopRereadsPromptEachIteration(t *testing.T) {
	h := newHarness(t, setup{max: 2, prompt: "Do task A\n"}, agentScript{
		submit: func(tn turn) {
			if tn.it == 1 {
				if err := os.WriteFile(tn.h.promptPath, []byte("Do task B\n"), 0o600); err != nil {
					tn.h.t.Error(err)
				}
			}
			tn.p.Exit(0)
		},
	})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	if got, want := h.fake.Pastes(h.paneID), []string{"Do task A", "Do task B"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pasted %q, want %q", got, want)
	}
	if b, _ := os.ReadFile(h.dir.PromptCopy()); string(b) != "Do task B\n" {
		t.Errorf("prompt copy %q, want the edited prompt", b)
	}
}

func TestLoopExitCodeFromWrapperFile(t *testing.T) {
	// tmux does not always collect the status of a pane that ends quickly; the wrapper's
	// exit file is then the only record, and a stale one must not leak into the next run.
	var exitPath string
	h := newHarness(t, setup{max: 2}, agentScript{
		submit: func(tn turn) {
			if tn.it == 1 {
				if err := os.WriteFile(exitPath, []byte("0\n"), 0o600); err != nil {
					tn.h.t.Error(err)
				}
			}
			tn.p.Dead, tn.p.HasStatus = true, false
		},
	})
	exitPath = h.sd.ExitPath(loopName)
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines(
		"iteration 1 completed (exit: 0, duration: 0s)",
		"starting iteration 2/2",
		"iteration 2 failed (exit: unknown)",
		"max iterations (2) reached",
	)
	if st := h.state(); st.TotalFailures != 1 {
		t.Errorf("total failures %d, want 1", st.TotalFailures)
	}
}
