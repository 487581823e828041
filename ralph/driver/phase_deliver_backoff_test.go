package driver

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/tmux"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

// countingTmux counts the captures of the agent's screen, each a look at it.
type countingTmux struct {
	tmux.Client
	captures atomic.Int64
}

func (c *countingTmux) Capture(paneID string, history int) (string, error) {
	c.captures.Add(1)
	return c.Client.Capture(paneID, history)
}

// An agent that never shows its input prompt, its screen as it was, is looked at less and less
// often until the ready timeout ends the iteration: about thirty looks in a minute, where its
// output is not followed (a look a second at most), not one every poll (300).
func TestNotReadyAgentIsLookedAtLessOften(t *testing.T) {
	h := newHarness(t, setup{max: 1, readyTimeout: 60}, agentScript{
		start: func(tn turn) { tn.p.SetScreen("Loading the agent...") },
	})
	cfg := h.config()
	counted := &countingTmux{Client: h.fake}
	cfg.Tmux = counted
	h.run(cfg)
	h.wantLines("agent not ready after 60s (no input prompt seen, on a screen swarm does not know; kept in "+h.dir.UnknownScreenPath(1)+" to report)",
		"iteration 1 failed (exit: ready timeout)", "max iterations reached (1) and every iteration failed")
	if n := counted.captures.Load(); n < 50 || n > 75 {
		t.Errorf("%d captures in the minute's wait; want a look a second at most (with the few of the iteration's end)", n)
	}
	if k := h.procs.liveKills(); len(k) != 1 || k[0].at.Sub(h.startRecs()[0].at) > 61*time.Second {
		t.Errorf("the agent was ended %+v; want it ended at the 60s ready timeout", k)
	}
}

// A screen that keeps changing is looked at every poll: the wait grows only while it stays.
func TestChangingScreenIsLookedAtEveryPoll(t *testing.T) {
	h := newHarness(t, setup{max: 1, readyTimeout: 10}, agentScript{
		start: func(tn turn) {
			for at := 100 * time.Millisecond; at < 10*time.Second; at += 100 * time.Millisecond {
				shown := "Loading " + at.String()
				tn.later(at, func(q *tmuxtest.FakePane) { q.SetScreen(shown) })
			}
		},
	})
	cfg := h.config()
	counted := &countingTmux{Client: h.fake}
	cfg.Tmux = counted
	h.run(cfg)
	if n := counted.captures.Load(); n < 45 {
		t.Errorf("%d captures in 10s of a changing screen; want one every 200ms poll", n)
	}
}
