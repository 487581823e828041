package driver

import (
	"time"

	"github.com/swarm-dev/swarm/ralph"
)

// The watch of a followed pane: looks at its screen only when it printed, and what the feed
// tells of the screen's last change.

// feedSafety is how long a followed pane goes unlooked at while it prints nothing: the look
// that catches a copying that stopped without a word.
const feedSafety = 60 * time.Second

// serverProbe is how often a followed pane that prints nothing is asked about, one question
// to tmux: a pane that is merely quiet and a server that no longer answers look alike from
// the feed, and the loop must not take the one for the other for long.
const serverProbe = 20 * time.Second

// serverSilentNow asks the server about the pane when serverProbe has passed since the last
// look or question, and reports whether it did not answer.
func (aw *agentWatch) serverSilentNow(w *screenWatch, now time.Time) bool {
	if now.Before(w.looked.Add(serverProbe)) || now.Before(w.probed.Add(serverProbe)) {
		return false
	}
	w.probed = now
	_, err := aw.cfg.Tmux.PaneNow(aw.view.lastSeen().paneID)
	return aw.outage.notAnswering(err)
}

// screenFed looks at a followed pane only when it printed something since the last look (at
// most every minScreenPoll) or feedSafety after it; an agent that printed nothing is ended the
// moment it has been quiet too long, without a look. It reports whether the iteration ended.
func (aw *agentWatch) screenFed(st *ralph.State, a *agent, w *screenWatch, next *watchTimes) bool {
	now := w.facts.Now
	if w.feed.ended.Load() {
		// The copier is gone, with the pane or the tmux server, or alone: pipe the pane
		// again, or, when that fails, find out what became of it by looking.
		if w.feed = aw.pane.follow(*a); w.feed == nil {
			next.screen = now
			return false
		}
	}
	moved := w.feed.reads.Load() != w.seen
	if !moved && aw.serverSilentNow(w, now) {
		return false
	}
	if !moved {
		if ending, ok := ralph.Quiet(w.facts); ok {
			aw.ending.end(st, *a, ending)
			return true
		}
	}
	marked := moved && w.feed.marked.Swap(false)
	if marked || moved && !now.Before(w.looked.Add(minScreenPoll)) || !now.Before(w.looked.Add(feedSafety)) {
		if moved && aw.doneFileNow() {
			// An agent that made the DONE file has shown it working: seen now, not at the
			// next status poll.
			aw.ending.end(st, *a, ralph.EndDoneFile)
			return true
		}
		seenBefore := w.lastHash
		w.prevLook, w.outAt = w.looked, time.Unix(0, w.feed.last.Load())
		w.seen, w.looked = w.feed.reads.Load(), now
		if aw.lookAtScreen(st, a, w) {
			return true
		}
		if !moved && seenBefore != "" && w.lastHash != seenBefore {
			// The screen changed with nothing copied: pipe the pane again. (Its last change
			// may be dated anew without one, see datedChange: that is no sign.)
			aw.pane.feed.pane = ""
			w.feed = aw.pane.follow(*a)
			if w.feed == nil {
				return false
			}
		}
		moved = w.feed.reads.Load() != w.seen
	}
	next.screen = nextFedLook(now, w.looked, moved, ralph.QuietAt(w.facts))
	if probe := maxTime(w.looked, w.probed).Add(serverProbe); probe.Before(next.screen) {
		next.screen = probe
	}
	return false
}

// outputLag bounds how long output takes from the pane to the feed (through tmux and its
// copier): output read that soon after a look may already have been on the screen it saw.
const outputLag = 100 * time.Millisecond

// datedChange dates the screen's last change after a look through the feed (last: as dated
// so far). A screen that changed did so with the last output read before the look (at outAt),
// not when the look came, up to minScreenPoll later. One that did not change may still have
// moved: output read within outputLag after the previous look (at prevLook) was probably on
// the screen that look saw already, and dates the change, so a quiet agent is not ended early.
func datedChange(last, now, prevLook, outAt time.Time, changed bool) time.Time {
	switch {
	case changed && outAt.After(prevLook) && !outAt.After(now):
		return maxTime(last, outAt)
	case changed:
		return now
	case outAt.After(prevLook) && !outAt.After(prevLook.Add(outputLag)):
		return maxTime(last, outAt)
	}
	return last
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// nextFedLook is when a followed pane is next looked at, or its quiet judged: minScreenPoll
// after the last look when it has printed since, else when it would have been quiet too long,
// at the latest feedSafety after the last look.
func nextFedLook(now, looked time.Time, moved bool, quietAt time.Time) time.Time {
	if moved {
		if at := looked.Add(minScreenPoll); at.After(now) {
			return at
		}
		return now
	}
	at := looked.Add(feedSafety)
	if quietAt.After(now) && quietAt.Before(at) {
		at = quietAt
	}
	return at
}

// wakeup is what wakes the watch early when the pane prints. While a look is already due only
// output that may hold the done marker does (a pane printing steadily wakes it once per look,
// not at every write; the marker is seen the moment it comes).
func (w *screenWatch) wakeup() <-chan struct{} {
	switch {
	case w.feed == nil:
		return nil
	case w.feed.reads.Load() != w.seen:
		return w.feed.hint // only output that may hold the marker brings the look forward
	}
	return w.feed.wake
}

// settleFed is letTurnFinish for a followed pane: the turn has settled once the pane printed
// nothing for turnSettlePoll, seen without a capture, and no sooner than turnSettlePoll after
// the marker was seen: the agent's records are written a moment after its screen (a shorter
// wait lost the last turn's cost from Claude Code's transcript).
func (aw *agentWatch) settleFed(a agent, feed *paneFeed) {
	seen := aw.cfg.Clock.Now()
	deadline := seen.Add(turnSettle)
	for {
		now := aw.cfg.Clock.Now()
		until := seen.Add(turnSettlePoll)
		if quiet := feed.lastOutput().Add(turnSettlePoll); quiet.After(until) {
			until = quiet
		}
		if !now.Before(until) || !now.Before(deadline) || !aw.cfg.Procs.Alive(a.pid) {
			return
		}
		aw.cfg.Clock.Sleep(min(until.Sub(now), deadline.Sub(now)))
	}
}

// doneFileNow reports a DONE file present.
func (aw *agentWatch) doneFileNow() bool {
	present, _ := aw.cfg.Dir.DoneMarker()
	return present
}
