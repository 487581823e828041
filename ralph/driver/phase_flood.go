package driver

import (
	"fmt"
	"time"
)

// A pane that floods (a command printing without pause) is not followed through the feed:
// the copying is stopped, the screen is looked at every floodScreenPoll instead, and the
// copying starts again after a pause that doubles while the flood goes on. That keeps what
// the Regent reads, and what the tmux server holds for it, bounded by the screen, not by
// what the agent prints.

const (
	floodPauseMin = 10 * time.Second
	floodPauseMax = 2 * time.Minute
	// floodCalm: a flood that comes back this soon after the copying started again is the
	// same flood, and the next pause is twice as long.
	floodCalm = 30 * time.Second
	// floodScreenPoll is how often a flooding screen is looked at: it always looks changed,
	// so without a floor it would be looked at every minScreenPoll.
	floodScreenPoll = 2 * time.Second
)

// floodPause is a watch's record of its pane's floods.
type floodPause struct {
	until   time.Time     // the copying starts again then; zero when it is not stopped
	pause   time.Duration // the length of the last pause
	resumed time.Time     // when the copying last started again after one
}

// holding reports a pause under way at now.
func (f *floodPause) holding(now time.Time) bool { return !f.until.IsZero() && now.Before(f.until) }

// begin starts a pause at now and reports whether this flood is a new one (not the one the
// last pause was for).
func (f *floodPause) begin(now time.Time) (time.Duration, bool) {
	again := !f.resumed.IsZero() && now.Sub(f.resumed) < floodCalm
	if again {
		f.pause = min(2*f.pause, floodPauseMax)
	} else {
		f.pause = floodPauseMin
	}
	f.until = now.Add(f.pause)
	return f.pause, !again
}

// resumeDue reports, once, that a pause is over at now.
func (f *floodPause) resumeDue(now time.Time) bool {
	if f.until.IsZero() || now.Before(f.until) {
		return false
	}
	f.until, f.resumed = time.Time{}, now
	return true
}

// floodTurn is the watch's turn for floods: a pane whose pause is over is followed again,
// and a followed pane that floods is not, from now on (its screen is looked at at once).
func (aw *agentWatch) floodTurn(a agent, w *screenWatch, next *watchTimes) {
	now := w.facts.Now
	aw.followAfterFlood(a, w, now)
	if w.feed != nil && w.feed.flooding.Load() {
		aw.stopFollowingFlood(w, now)
		next.screen = now
	}
}

// stopFollowingFlood stops the copying of a flooding pane and starts a pause; the screen is
// looked at now, without the feed. A new flood is logged once, not at every pause of it.
func (aw *agentWatch) stopFollowingFlood(w *screenWatch, now time.Time) {
	aw.pane.unfollow()
	w.feed = nil
	pause, fresh := w.flood.begin(now)
	if fresh {
		aw.rec.logEvent("WARN", fmt.Sprintf("iteration %d agent's pane prints over %d kB/s: looking at its screen every %s instead of following its output (again in %s)",
			aw.drv.iteration(), floodBytes>>10, floodScreenPoll, pause))
	}
}

// followAfterFlood starts following the pane again when its pause is over.
func (aw *agentWatch) followAfterFlood(a agent, w *screenWatch, now time.Time) {
	if w.feed == nil && w.flood.resumeDue(now) {
		w.feed = aw.pane.follow(a)
	}
}
