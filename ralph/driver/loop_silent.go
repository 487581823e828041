package driver

import (
	"errors"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/tmux"
)

// A tmux server that stops answering (stopped, wedged): its agents may well be working, so
// the loop neither ends nor restarts them on what it cannot see. It says so once, escalates,
// keeps asking, and counts none of the time it could not look against the agent.

// silence is an outage of the loop's tmux server as the loop saw it.
type silence struct {
	since time.Time
	why   string
}

// notAnswering reports whether err is the server's silence, and records it: the first time
// of an outage, the loop says so and escalates.
func (l *Loop) notAnswering(err error) bool {
	if !errors.Is(err, tmux.ErrNotAnswering) {
		return false
	}
	if l.silent == nil {
		l.silent = &silence{since: l.cfg.Clock.Now(), why: err.Error()}
		l.escalateSilence(l.silent.why)
	}
	return true
}

// escalateSilence tells the log, the supervision counters and its webhook (where it has one)
// that the loop cannot watch its agent; the loop itself goes on.
func (l *Loop) escalateSilence(why string) {
	reason := why + " — the agent is left running; waiting for the server"
	l.rec.supervisionSay("%s", reason)
	l.rec.logEvent("ESCALATE", reason)
	l.rec.updateSupervision(func(rs *ralph.SupervisionState) { rs.Escalations++ })
	cur, err := l.cfg.Dir.Load()
	if err != nil {
		return
	}
	rc := ralph.EffectiveSupervision(cur.Supervision)
	if !rc.Enabled || rc.Webhook == "" {
		return
	}
	l.notify.send(cur, ralph.Notice{Event: ralph.NotifyBlocked, Reason: why}, nil, l.notify.escalationHook(rc.Webhook, "tmux server not answering"))
}

// whileSilent is the watch's look while the server does not answer: the agent's process and
// the loop's files are looked at as ever (watchOnce), the screen only to learn whether the
// server answers again. It reports whether the iteration ended (it does not, here).
func (l *Loop) whileSilent(a *agent, w *screenWatch, next *watchTimes) bool {
	now := w.facts.Now
	if now.Before(next.screen) {
		return false
	}
	next.screen = now.Add(l.screenEvery(w.facts.Inactivity))
	if _, err := l.capture(*a, 0); err != nil {
		l.notAnswering(err)
		return false
	}
	l.serverBack(w)
	return false
}

// serverBack ends an outage: the loop says how long it lasted, and the agent's quiet and hang
// clocks start again now (what it did meanwhile could not be seen).
func (l *Loop) serverBack(w *screenWatch) {
	if l.silent == nil {
		return
	}
	now := l.cfg.Clock.Now()
	l.rec.supervisionSay("the tmux server answers again (after %s)", words.Duration(now.Sub(l.silent.since)))
	l.silent = nil
	w.facts.LastChange, w.facts.LastProgress = now, now
	w.lastHash, w.lastSubst = "", ""
}

// silentAgent is the agent as last seen, for a look the server did not answer: its process
// says whether it still runs.
func (l *Loop) silentAgent(paneID string) agent {
	a := l.seen
	if a.paneID == "" {
		a.paneID = paneID
	}
	if a.pid > 0 && !l.cfg.Procs.Alive(a.pid) {
		a.dead = true
	}
	return a
}
