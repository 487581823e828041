package driver

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state/eventlog"
)

// What a loop tells the state directory's event log: each of its decisions once, where it is
// recorded, in the order they were taken.

// events are the state directory's events, each in brief: kind, iteration, how, reason, by.
func (h *harness) events() []string {
	h.t.Helper()
	all, err := eventlog.Log{Root: h.sd.Root}.Since(0, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, e := range all {
		if e.Worker != loopName {
			h.t.Errorf("event %+v is not the loop's worker's", e)
		}
		parts := []string{e.Kind}
		if e.Iteration > 0 {
			parts = append(parts, strconv.Itoa(e.Iteration))
		}
		for _, s := range []string{e.How, e.Reason, e.By} {
			if s != "" {
				parts = append(parts, s)
			}
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

func (h *harness) wantEvents(want ...string) {
	h.t.Helper()
	if got := h.events(); !reflect.DeepEqual(got, want) {
		h.t.Errorf("events:\n  %s\nwant:\n  %s\noutput:\n%s", strings.Join(got, "\n  "), strings.Join(want, "\n  "), h.out.String())
	}
}

func TestEventsOfAFailureThenDone(t *testing.T) {
	h := newHarness(t, setup{max: 5, donePattern: "ALL DONE"}, agentScript{
		submit: func(tn turn) {
			if tn.it == 1 {
				tn.p.Exit(1)
				return
			}
			tn.exitAfter(time.Second, 0, claudeIdle("ALL DONE"))
		},
	})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantEvents(
		"iteration.ended 1 failed exit 1",
		"iteration.started 2",
		"iteration.ended 2 done done_pattern",
		"loop.done 2 done_pattern",
	)
}

func TestEventsOfAPauseAndAResume(t *testing.T) {
	pause := func(s *ralph.State) (ralph.Decision, error) { return ralph.Pause(s, "paused by user", "paused") }
	h := newHarness(t, setup{max: 2}, agentScript{
		submit: func(tn turn) {
			if tn.it == 1 {
				tn.h.clock.After(5*time.Second, func() {
					if _, _, err := tn.h.dir.Transition(tn.h.clock.Now(), pause); err != nil {
						tn.h.t.Error(err)
					}
				})
			}
			tn.exitAfter(10*time.Second, 0, "")
		},
	})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	// The pause lets the working agent finish; its end comes after the pause.
	h.wantEvents("loop.paused 1 paused", "iteration.ended 1 ended exit 0")
	_, _, err := h.dir.Transition(h.clock.Now(), func(s *ralph.State) (ralph.Decision, error) {
		d, _, err := ralph.Resume(s, ralph.ResumeRequest{})
		return d, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantEvents("loop.paused 1 paused", "iteration.ended 1 ended exit 0",
		"loop.resumed 1 paused", "iteration.started 2", "iteration.ended 2 ended exit 0", "loop.stopped 2 max_iterations")
}

func TestEventsOfAKillWhileWorking(t *testing.T) {
	h := newHarness(t, setup{max: 3}, agentScript{
		submit: func(tn turn) {
			tn.h.clock.After(10*time.Second, func() {
				_, _, err := tn.h.dir.Transition(tn.h.clock.Now(), func(s *ralph.State) (ralph.Decision, error) {
					return ralph.Killed(s), nil
				})
				if err != nil {
					tn.h.t.Error(err)
				}
			})
		},
	})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantEvents("loop.stopped 1 killed", "iteration.ended 1 killed")
}

func TestEventsOfAPersonNeededOnce(t *testing.T) {
	// Both agents wait at the same dialog, looked at again and again: one need, from the first
	// look until the loop gives up.
	h := newHarness(t, setup{max: 2, readyTimeout: 30}, agentScript{
		start: func(tn turn) { tn.p.SetScreen(readBypassDialog(t)) },
	})
	if code := h.run(h.config()); code != 1 {
		t.Errorf("Run = %d, want 1", code)
	}
	h.wantEvents(
		"person.needed 1",
		"iteration.ended 1 timeout ready_timeout",
		"iteration.started 2",
		"iteration.ended 2 timeout ready_timeout",
		"loop.failed 2 all_iterations_failed",
		"person.answered 2 swarm",
	)
	all, _ := eventlog.Log{Root: h.sd.Root}.Since(0, 1)
	if len(all) != 1 || all[0].What != ralph.NeedDialog || all[0].Detail != "bypass-permissions" {
		t.Errorf("the need told %+v, want the dialog it waits at", all)
	}
}

func TestEventsOfTheChecks(t *testing.T) {
	done := filepath.Join(t.TempDir(), "done")
	h := newHarness(t, setup{max: 3}, agentScript{
		submit: func(tn turn) {
			if tn.it == 2 {
				if err := os.WriteFile(done, nil, 0o600); err != nil {
					tn.h.t.Error(err)
				}
			}
			tn.p.Exit(0)
		},
	})
	if _, err := h.dir.Update(func(st *ralph.State) error { st.Checks = []string{"file:" + done}; return nil }); err != nil {
		t.Fatal(err)
	}
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantEvents(
		"checks.failed 1 file:"+done+": "+done+" does not exist",
		"iteration.ended 1 ended exit 0",
		"iteration.started 2",
		"checks.passed 2",
		"iteration.ended 2 done complete",
		"loop.done 2 complete",
	)
}

func TestEventsOfTheTestGate(t *testing.T) {
	const suite = "grep -qx ok status.txt"
	t.Run("passed", func(t *testing.T) {
		var made string
		h, _, _ := supervisionGated(t, suite, "ok\n", func(dir string) (err error) {
			made, err = supervisionCommit(dir, "add feature", map[string]string{"feature.txt": "new\n"})
			return err
		})
		h.run(h.config())
		h.wantEvents("gate.passed 1", "iteration.ended 1 ended exit 0", "loop.stopped 1 max_iterations")
		if all, _ := (eventlog.Log{Root: h.sd.Root}).Since(0, 1); len(all) != 1 || all[0].Commit != ralph.ShortCommit(made) {
			t.Errorf("gate event %+v, want the commit it kept", all)
		}
	})
	t.Run("rolled back", func(t *testing.T) {
		var made string
		h, _, _ := supervisionGated(t, suite, "ok\n", func(dir string) (err error) {
			made, err = supervisionCommit(dir, "break the suite", map[string]string{"status.txt": "broken\n"})
			return err
		})
		h.run(h.config())
		h.wantEvents("gate.failed 1 the tests failed: reverting 1 commit", "gate.rolled_back 1",
			"iteration.ended 1 ended exit 0", "loop.stopped 1 max_iterations")
		all, _ := eventlog.Log{Root: h.sd.Root}.Since(0, 2)
		if len(all) != 2 || all[1].Commit != ralph.ShortCommit(made) {
			t.Errorf("rollback event %+v, want the commit it reverted", all)
		}
	})
	t.Run("test command cannot run", func(t *testing.T) {
		h, _, _ := supervisionGated(t, "no-such-binary-xyz", "ok\n", func(dir string) error {
			_, err := supervisionCommit(dir, "break the suite", map[string]string{"status.txt": "broken\n"})
			return err
		})
		h.run(h.config())
		got := h.events()
		if len(got) != 3 || !strings.HasPrefix(got[0], "gate.failed 1 the test command cannot run: ") ||
			got[1] != "loop.failed 1 test_command_error" || got[2] != "iteration.ended 1 ended exit 0" {
			t.Errorf("events %q, want the gate failed, the loop failed, then the iteration's end", got)
		}
	})
}
