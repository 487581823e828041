package driver

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

// Making sure the agent took its prompt, against agents that miss an Enter in the ways real
// ones do on a loaded machine, and agents that take it without a sign a screen could mistake.

func (h *harness) wantEnters(n int) {
	h.t.Helper()
	want := make([]string, n)
	for i := range want {
		want[i] = "Enter"
	}
	if got := h.fake.Keys(h.paneID); !reflect.DeepEqual(got, want) {
		h.t.Errorf("keys %v, want %d Enters", got, n)
	}
	if p := h.fake.Pastes(h.paneID); len(p) != 1 {
		h.t.Errorf("%d pastes, want 1: the prompt is never typed twice", len(p))
	}
}

func (h *harness) iterationsLog() string {
	h.t.Helper()
	b, _ := os.ReadFile(h.dir.IterationsLog())
	return string(b)
}

// The agent misses the first Enter and keeps the prompt in its input box, on the screen the
// paste left: Enter again once the screen has stood still.
func TestSubmitPressesEnterAgainOnAPromptLeftInTheInput(t *testing.T) {
	h := newHarness(t, setup{max: 1}, agentScript{
		ignoreEnter: func(it, n int) bool { return n == 1 },
		submit:      exitOnSubmit(0),
	})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines(
		"the prompt is still in the agent's input; pressing Enter again",
		"iteration 1 completed (exit: 0, duration: 3s)",
		"max iterations (1) reached",
	)
	h.wantEnters(2)
	if log := h.iterationsLog(); !strings.Contains(log, "[RETRY] iteration 1 prompt still in the agent's input, Enter pressed again") {
		t.Errorf("iterations.log:\n%s", log)
	}
}

// Gemini CLI on a loaded machine: the paste is drawn only after the Enter, which it took for a
// newline in the paste. The screen changed after the Enter, yet the prompt was not taken.
func TestSubmitSeesThePromptLeftOnAScreenThatChanged(t *testing.T) {
	h := newHarness(t, setup{max: 1}, agentScript{
		ignoreEnter: func(it, n int) bool { return n == 1 },
		submit:      exitOnSubmit(0),
	})
	paste, keys := h.fake.OnPaste, h.fake.OnKeys
	h.fake.OnPaste = func(p *tmuxtest.FakePane, text string) {
		paste(p, text)
		p.SetScreen(claudeIdle()) // not drawn yet
	}
	h.fake.OnKeys = func(p *tmuxtest.FakePane, key string) {
		keys(p, key)
		if h.enters == 1 && h.typed != "" {
			p.SetScreen(claudeTyped(h.typed)) // drawn now, still in the input
		}
	}
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines(
		"the prompt is still in the agent's input; pressing Enter again",
		"iteration 1 completed (exit: 0, duration: 3s)",
		"max iterations (1) reached",
	)
	h.wantEnters(2)
}

// The screen changes after the Enter (a notice) before the paste is drawn at all, and the
// paste then shows up in the input: the change was no sign, the prompt left is.
func TestSubmitWaitsOutAChangeThatIsNoEcho(t *testing.T) {
	h := newHarness(t, setup{max: 1}, agentScript{
		ignoreEnter: func(it, n int) bool { return n == 1 },
		submit:      exitOnSubmit(0),
	})
	paste, keys := h.fake.OnPaste, h.fake.OnKeys
	h.fake.OnPaste = func(p *tmuxtest.FakePane, text string) {
		paste(p, text)
		p.SetScreen(claudeIdle())
	}
	h.fake.OnKeys = func(p *tmuxtest.FakePane, key string) {
		keys(p, key)
		if h.enters != 1 || h.typed == "" {
			return
		}
		p.SetScreen(claudeIdle("ℹ Initializing..."))
		typed, id, pid := h.typed, p.ID, p.PID
		h.clock.After(2*time.Second, func() {
			_ = h.fake.Do(id, func(q *tmuxtest.FakePane) {
				if q.PID == pid && !q.Dead {
					q.SetScreen("ℹ Initializing...\n\n" + claudeTyped(typed))
				}
			})
		})
	}
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines(
		"the prompt is still in the agent's input; pressing Enter again",
		"iteration 1 completed (exit: 0, duration: 5s)",
		"max iterations (1) reached",
	)
	h.wantEnters(2)
}

// An agent whose screen changed after the Enter without its echo, a busy sign or the prompt
// in its input is taken at its word once it has had the time to react: no second Enter.
func TestSubmitTakesAChangedScreenAfterTheConfirmTime(t *testing.T) {
	h := newHarness(t, setup{max: 1}, agentScript{submit: func(tn turn) {
		tn.p.SetScreen(claudeIdle("● Working on something."))
		tn.exitAfter(10*time.Second, 0, "")
	}})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines("iteration 1 completed (exit: 0, duration: 10s)", "max iterations (1) reached")
	h.wantEnters(1)
	// Taken at 3 s, its quiet time counts from its screen's change at the Enter.
	if at := ralph.ParseTime(h.state().LastScreenChange); at.IsZero() || at.After(h.clock.start.Add(time.Second)) {
		t.Errorf("last screen change %s, want the Enter's moment (%s + the input settle)", at, h.clock.start)
	}
}

// An agent that shows nothing of what is typed and misses the Enter: no reaction at all, so
// Enter is pressed again once.
func TestSubmitPressesEnterAgainWithoutAReaction(t *testing.T) {
	h := newHarness(t, setup{max: 1}, agentScript{
		ignoreEnter: func(it, n int) bool { return n == 1 },
		submit:      exitOnSubmit(0),
	})
	paste := h.fake.OnPaste
	h.fake.OnPaste = func(p *tmuxtest.FakePane, text string) {
		paste(p, text)
		p.SetScreen(claudeIdle())
	}
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines(
		"agent did not react to the prompt; pressing Enter again",
		"iteration 1 completed (exit: 0, duration: 3s)",
		"max iterations (1) reached",
	)
	h.wantEnters(2)
	if log := h.iterationsLog(); !strings.Contains(log, "[RETRY] iteration 1 prompt not picked up, Enter pressed again") {
		t.Errorf("iterations.log:\n%s", log)
	}
}

// An agent that took the prompt without a busy sign (its reply came at once) gets no second
// Enter: its input is empty.
func TestSubmitTakesAnEmptiedInputWithoutABusySign(t *testing.T) {
	h := newHarness(t, setup{max: 1}, agentScript{submit: func(tn turn) {
		tn.p.SetScreen(claudeIdle(append(echo(tn.prompt), "", "● Nothing to do.")...))
		tn.exitAfter(10*time.Second, 0, "")
	}})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines("iteration 1 completed (exit: 0, duration: 10s)", "max iterations (1) reached")
	h.wantEnters(1)
}

// An agent that took the prompt but redraws its input only a moment later (a loaded machine)
// gets no second Enter either: the prompt is pressed again only once the screen stood still.
func TestSubmitWaitsForAnInputEmptiedLate(t *testing.T) {
	h := newHarness(t, setup{max: 1}, agentScript{submit: func(tn turn) {
		tn.p.SetScreen(claudeTyped(tn.prompt))
		tn.later(2*time.Second, func(q *tmuxtest.FakePane) { q.SetScreen(claudeIdle(echo(tn.prompt)...)) })
		tn.exitAfter(10*time.Second, 0, "")
	}})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines("iteration 1 completed (exit: 0, duration: 10s)", "max iterations (1) reached")
	h.wantEnters(1)
}

// An agent that never takes the prompt is pressed Enter a bounded number of times, and then
// watched as it is (its inactivity ends the iteration).
func TestSubmitGivesUpAfterMaxEnters(t *testing.T) {
	h := newHarness(t, setup{max: 1, inactivity: 20}, agentScript{
		ignoreEnter: func(int, int) bool { return true },
	})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantEnters(3)
	got := h.loopLines()
	if len(got) < 3 || got[0] != "the prompt is still in the agent's input; pressing Enter again" ||
		got[1] != got[0] || got[2] != "the prompt is still in the agent's input after 3 Enters; watching the agent as it is" {
		t.Errorf("loop said:\n%s", strings.Join(got, "\n"))
	}
	if log := h.iterationsLog(); strings.Count(log, "[RETRY]") != 2 || !strings.Contains(log, "[WARN] iteration 1 prompt still in the agent's input after 3 Enters") {
		t.Errorf("iterations.log:\n%s", log)
	}
}
