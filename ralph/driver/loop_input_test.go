package driver

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

func TestLoopAbortEndsAgentAtOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := newHarness(t, setup{max: 3}, agentScript{
		submit: func(tn turn) { tn.h.clock.After(10*time.Second, cancel) },
	})
	cfg := h.config()
	cfg.Context = ctx
	if code := h.run(cfg); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines("stopping now, agent ended")
	st := h.state()
	h.wantState(st, ralph.StatusPaused, "signal", 1)
	kills := h.procs.liveKills()
	if len(kills) != 1 || kills[0].pid != h.startRecs()[0].pid || kills[0].grace != 0 {
		t.Errorf("live kills %+v, want the agent killed without grace", kills)
	}
}

func TestLoopStdinMode(t *testing.T) {
	// Headless agents get the prompt on standard input through the wrapper: nothing is typed.
	h := newHarness(t, setup{max: 2, mode: config.PromptStdin}, agentScript{
		start: func(tn turn) {
			// Even a screen that looks like an input prompt gets nothing typed.
			tn.p.SetScreen("$")
			tn.exitAfter(5*time.Second, 0, "finished\n$")
		},
	})
	cfg := h.config()
	cfg.RunWrapper = []string{"/usr/bin/swarm", "__run"}
	if code := h.run(cfg); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines(
		"iteration 1 completed (exit: 0, duration: 5s)",
		"starting iteration 2/2",
		"iteration 2 completed (exit: 0, duration: 5s)",
		"max iterations (2) reached",
	)
	if in := h.fake.Inputs(); len(in) != 0 {
		t.Errorf("typed into a stdin-mode agent: %+v", in)
	}
	if w := h.clock.waits(ralph.PhaseStarting); len(w) != 0 {
		t.Errorf("waited %v for an input prompt in stdin mode", w)
	}
	starts := h.startRecs()
	// The worker's environment comes from its private file; the iteration's values (no
	// secrets) are flags of the wrapper.
	want := []string{"/usr/bin/swarm", "__run", "--env-file", h.sd.EnvPath(loopName), "--env", "SWARM_ITERATION=2",
		"--env", "SWARM_WORKER=" + loopName, "--env", "SWARM_DONE_FILE=" + h.dir.DoneFile(),
		"--exit-file", h.sd.ExitPath(loopName), "--stdin", h.dir.PromptCopy(), "--", "claude", "--session-id", h.state().AgentSession,
		"--settings", h.dir.ClaudeSettings()}
	if len(starts) != 2 || !reflect.DeepEqual(starts[1].spec.Argv, want) {
		t.Errorf("iteration 2 argv %q, want %q", starts[len(starts)-1].spec.Argv, want)
	}
}

func TestAgentArgv(t *testing.T) {
	cmd := []string{"claude", "--model", "opus"}
	wrapper := []string{"/bin/swarm", "__run"}
	cases := []struct {
		name    string
		mode    string
		wrapper []string
		want    []string
	}{
		{"no wrapper", config.PromptStdin, nil, cmd},
		{"type", config.PromptType, wrapper, []string{"/bin/swarm", "__run", "--exit-file", "/x/exit", "--", "claude", "--model", "opus"}},
		{"stdin", config.PromptStdin, wrapper, []string{"/bin/swarm", "__run", "--exit-file", "/x/exit", "--stdin", "/x/prompt", "--", "claude", "--model", "opus"}},
	}
	for _, c := range cases {
		got := ralph.AgentArgv(cmd, c.mode, c.wrapper, "/x/exit", "/x/prompt")
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if !reflect.DeepEqual(wrapper, []string{"/bin/swarm", "__run"}) {
		t.Errorf("AgentArgv changed the wrapper slice: %q", wrapper)
	}
}

func TestBackoff(t *testing.T) {
	// min(2^(n-1), 300) seconds.
	want := []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300}
	for i, w := range want {
		n := i + 1
		if got := ralph.Backoff(n); got != time.Duration(w)*time.Second {
			t.Errorf("Backoff(%d) = %v, want %ds", n, got, w)
		}
	}
	for _, n := range []int{63, 64, 1000} {
		if got := ralph.Backoff(n); got != 300*time.Second {
			t.Errorf("Backoff(%d) = %v, want 5m0s", n, got)
		}
	}
}

// An agent that prints its marker before the end of its turn gets to finish the turn: the
// iteration's kept screen has what it printed after the marker, until its screen held still.
func TestLoopDoneMarkerLetsTheTurnFinish(t *testing.T) {
	prompt := "Work through PLAN.md and print ALL DONE when finished.\n"
	h := newHarness(t, setup{max: 2, prompt: prompt, donePattern: "ALL DONE"}, agentScript{
		submit: func(tn turn) {
			lines := append(echo(tn.prompt), "", "● ALL DONE")
			tn.later(30*time.Second, func(q *tmuxtest.FakePane) { q.SetScreen(claudeIdle(lines...)) })
			// The rest of the turn comes over the next second and a half, a line at a time.
			for k := 1; k <= 10; k++ {
				tn.later(30*time.Second+time.Duration(k)*150*time.Millisecond, func(q *tmuxtest.FakePane) {
					lines = append(lines, fmt.Sprintf("● Closing note %d.", k))
					q.SetScreen(claudeIdle(lines...))
				})
			}
		},
	})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantState(h.state(), ralph.StatusStopped, "done_pattern", 1)
	kept, err := os.ReadFile(h.dir.ScreenPath(1))
	if err != nil || !strings.Contains(string(kept), "● Closing note 10.") {
		t.Errorf("the agent was ended before its turn was over (%v):\n%s", err, kept)
	}
}

// The loop types the prompt holding the worker's input lock, as swarm send and heartbeats do,
// so neither lands between its paste and its Enter; the lock is let go once Enter is pressed.
func TestLoopTypesThePromptUnderTheInputLock(t *testing.T) {
	var pasted, entered []bool
	h := newHarness(t, setup{max: 1, prompt: "do it\n"}, agentScript{
		submit: func(tn turn) { tn.p.Exit(0) },
	})
	paste, keys := h.fake.OnPaste, h.fake.OnKeys
	h.fake.OnPaste = func(p *tmuxtest.FakePane, text string) {
		pasted = append(pasted, state.IsLocked(h.sd.InputLockPath(loopName)))
		paste(p, text)
	}
	h.fake.OnKeys = func(p *tmuxtest.FakePane, key string) {
		if key == "Enter" {
			entered = append(entered, state.IsLocked(h.sd.InputLockPath(loopName)))
		}
		keys(p, key)
	}
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	if len(pasted) == 0 || !pasted[0] || len(entered) == 0 || !entered[0] {
		t.Errorf("input lock held at the paste %v and at Enter %v, want both", pasted, entered)
	}
	if state.IsLocked(h.sd.InputLockPath(loopName)) {
		t.Error("input lock still held after the loop")
	}
}
