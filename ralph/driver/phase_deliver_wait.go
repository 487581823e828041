package driver

import (
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/screen"
)

// Waiting while a prompt is delivered: for the agent's input prompt, for its pane to print or
// settle. Each look is a capture of the agent's screen; a screen that stays as it was is looked
// at less and less often (ralph.ReadyLookWait), what the pane prints brings a look forward.

// waitReady polls the agent's screen until it shows its input prompt. It reports false when
// the iteration ended meanwhile (the agent exited, was aborted, never got ready).
func (dv *promptDelivery) waitReady(st *ralph.State) (agent, []string, bool) {
	timeout := time.Duration(st.ReadyTimeout) * time.Second
	if timeout <= 0 {
		timeout = 120 * time.Second
	}
	deadline := dv.cfg.Clock.Now().Add(timeout)
	blocked := st.BlockedBy
	var readyAt time.Time // when its input prompt was first seen
	var still stillScreen
	for {
		a := dv.view.now()
		switch {
		case dv.drv.abortRequested():
			dv.drv.abortNow(a)
			return a, nil, false
		case dv.drv.statusNow() == ralph.StatusStopped:
			return a, nil, false
		case a.dead:
			dv.ending.end(st, dv.view.settled(), ralph.EndExited)
			return a, nil, false
		}
		if lines, err := dv.view.capture(a, 0); err == nil {
			s := screen.Classify(strings.Join(lines, "\n"), dv.pats.readyRE)
			if s.Kind == screen.Ready && dv.settledReady(a, &lines) && dv.signals.sessionStarted(st, &readyAt) {
				if blocked != "" || st.UnknownScreen != "" || st.NeedsPersonSince != "" {
					dv.rec.update(func(x *ralph.State) error { x.AgentReady(); return nil })
				}
				return a, lines, true
			}
			if s.Kind == screen.Dialog && s.Dialog != blocked {
				blocked = s.Dialog
				dv.blocked(st, a, s.Dialog, lines)
			}
			still.saw(s.Kind != screen.Ready, lines)
		}
		now := dv.cfg.Clock.Now()
		if now.After(deadline) {
			dv.notReady(st, a, timeout, blocked)
			return a, nil, false
		}
		wait := ralph.ReadyLookWait(still.looks, deliveryWake(dv.pane.follow(a)) != nil, dv.cfg.ReadyPoll)
		dv.untilPrinted(a, min(wait, deadline.Sub(now)))
	}
}

// stillScreen counts the looks in a row that found an agent's screen as it was, without its
// input prompt: what the wait for the next look grows with (ralph.ReadyLookWait).
type stillScreen struct {
	looks int
	hash  string
}

// saw notes a look at the screen lines; waiting says it shows no input prompt yet.
func (s *stillScreen) saw(waiting bool, lines []string) {
	h := screen.ActivityHashOf(lines)
	if waiting && h == s.hash {
		s.looks++
		return
	}
	s.looks, s.hash = 0, ""
	if waiting {
		s.hash = h
	}
}

// untilPrinted waits up to d for the next look at an agent being given its prompt, less when
// its pane prints something (where its output is followed): an agent that shows its prompt,
// takes the prompt or ends shortly after a look is seen then, not a whole d later. Looks
// stay at least minDeliveryLook apart, however fast the pane prints.
func (dv *promptDelivery) untilPrinted(a agent, d time.Duration) {
	start := dv.cfg.Clock.Now()
	dv.drv.wait(d, nil, deliveryWake(dv.pane.follow(a)))
	if since := dv.cfg.Clock.Now().Sub(start); since < minDeliveryLook {
		dv.cfg.Clock.Sleep(minDeliveryLook - since)
	}
}

// deliveryWake is what brings a look at a starting agent forward: its pane printing, unless
// it floods (then every read would be a look, minDeliveryLook apart).
func deliveryWake(feed *paneFeed) <-chan struct{} {
	if feed == nil || feed.flooding.Load() {
		return nil
	}
	return feed.wake
}

// minDeliveryLook bounds how often a starting agent's screen is looked at.
const minDeliveryLook = 20 * time.Millisecond

// settledReady reports whether an agent whose screen showed its input prompt still shows it
// once its pane has been quiet for InputSettle (where its output is followed): an agent may
// draw its prompt before it has finished starting, and a paste into it then is lost. lines
// becomes the screen seen last.
func (dv *promptDelivery) settledReady(a agent, lines *[]string) bool {
	if dv.pane.follow(a) == nil || dv.untilQuiet(a, dv.cfg.InputSettle, inputQuietMax) {
		return true
	}
	now, err := dv.view.capture(a, 0)
	if err != nil {
		return false
	}
	*lines = now
	return screen.Classify(strings.Join(now, "\n"), dv.pats.readyRE).Kind == screen.Ready
}

// untilQuiet waits until the agent's pane has printed nothing for d, at most max in all; where
// its output is not followed it waits d. It reports whether the pane was quiet all along (no
// output came after the wait began).
func (dv *promptDelivery) untilQuiet(a agent, d, max time.Duration) bool {
	feed := dv.pane.follow(a)
	start := dv.cfg.Clock.Now()
	dv.cfg.Clock.Sleep(d)
	if feed == nil {
		return true
	}
	for {
		now := dv.cfg.Clock.Now()
		last := feed.lastOutput()
		if quiet := now.Sub(last); quiet >= d || now.Sub(start) >= max {
			return !last.After(start)
		}
		dv.cfg.Clock.Sleep(d - now.Sub(last))
	}
}

// inputQuietMax bounds how long a paste or an input prompt may take to settle (an agent that
// keeps printing, a spinner, is not waited for longer).
const inputQuietMax = 5 * time.Second
