package driver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

// A monitor that dies while it gives the agent the prompt leaves the iteration in the
// delivering phase; the next monitor finishes the job instead of waiting for a prompt.

func TestLoopTakeoverPressesTheMissingEnter(t *testing.T) {
	prompt := "Study PLAN.md and do the next task."
	h := newHarness(t, setup{max: 1, phase: ralph.PhaseSubmitting, prompt: prompt, readyTimeout: 120}, agentScript{
		start: func(tn turn) {
			// The dead monitor had pasted the prompt; Enter never came.
			tn.h.typed = prompt
			tn.p.SetScreen(claudeTyped(prompt))
		},
		submit: func(tn turn) { tn.exitAfter(5*time.Second, 0, claudeIdle(echo(prompt)...)) },
	})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines(
		"taking over while the prompt was being delivered; pressing Enter",
		"iteration 1 completed (exit: 0, duration: 5s)",
		"max iterations (1) reached",
	)
	if p := h.fake.Pastes(h.paneID); len(p) != 0 {
		t.Errorf("pasted again: %q", p)
	}
	if subs := h.submitRecs(); len(subs) != 1 {
		t.Errorf("submitted %d times, want once", len(subs))
	}
}

func TestLoopTakeoverAfterEnterOnlyWatches(t *testing.T) {
	prompt := "Study PLAN.md and do the next task."
	h := newHarness(t, setup{max: 1, phase: ralph.PhaseSubmitting, prompt: prompt, readyTimeout: 120}, agentScript{
		start: func(tn turn) {
			// Enter went through before the monitor died: the agent is at work.
			tn.p.SetScreen(claudeBusy(prompt, 2*time.Second))
			tn.exitAfter(8*time.Second, 0, claudeIdle(echo(prompt)...))
		},
	})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines("iteration 1 completed (exit: 0, duration: 8s)", "max iterations (1) reached")
	if n := len(h.fake.Inputs()); n != 0 {
		t.Errorf("%d inputs sent to a busy agent, want none", n)
	}
}

func TestLoopCorruptStateFailsVisibly(t *testing.T) {
	prompt := "Study PLAN.md and do the next task."
	h := newHarness(t, setup{max: 3, prompt: prompt}, agentScript{
		submit: func(tn turn) {
			tn.later(10*time.Second, func(*tmuxtest.FakePane) {
				_ = os.WriteFile(filepath.Join(tn.h.dir.Path, "state.json"), []byte("garbage"), 0o600)
			})
		},
	})
	if code := h.run(h.config()); code != 1 {
		t.Errorf("Run = %d, want 1", code)
	}
	st := h.state()
	h.wantState(st, ralph.StatusFailed, "state_corrupt", 1)
	copies, _ := filepath.Glob(filepath.Join(h.dir.Path, "state.json.corrupt-*"))
	if len(copies) != 1 {
		t.Fatalf("corrupt copies %v, want one kept", copies)
	}
	if data, _ := os.ReadFile(copies[0]); string(data) != "garbage" {
		t.Errorf("the corrupt copy holds %q", data)
	}
	log, _ := os.ReadFile(h.dir.IterationsLog())
	for _, want := range []string{"[FAIL] loop state " + filepath.Join(h.dir.Path, "state.json") + " was corrupt (kept as state.json.corrupt-", "[ESCALATE] loop state"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("iterations.log lacks %q:\n%s", want, log)
		}
	}
	if len(h.procs.liveKills()) != 1 {
		t.Errorf("the agent was not ended: kills %+v", h.procs.liveKills())
	}
	if !strings.Contains(h.out.String(), "swarm: error: loop state ") {
		t.Errorf("the error was not reported:\n%s", h.out.String())
	}
}

func TestLoopTakeoverBeforeThePasteDeliversAfresh(t *testing.T) {
	prompt := "Study PLAN.md and do the next task."
	h := newHarness(t, setup{max: 1, phase: ralph.PhaseDelivering, prompt: prompt}, agentScript{submit: exitOnSubmit(0)})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	if p := h.fake.Pastes(h.paneID); len(p) != 1 || p[0] != prompt {
		t.Errorf("pastes %q, want the prompt once", p)
	}
	h.wantLines("iteration 1 completed (exit: 0, duration: 0s)", "max iterations (1) reached")
}
