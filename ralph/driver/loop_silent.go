package driver

import (
	"errors"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/tmux"
)

// An iteration to start while the loop's tmux server does not answer: the loop waits for the
// server (ralph.StartWhileSilent decides for how long and what is said), asking it again now
// and then, instead of failing on a server that is only stopped or busy.

// waitForServer waits, before iteration n starts, for the tmux server the outage under way
// is about to answer. It reports whether it does: a loop paused, stopped or told to stop
// meanwhile, or one that gave up waiting, starts nothing.
func (l *Loop) waitForServer(st *ralph.State, n int) bool {
	o := l.outage
	if !o.lasting() || l.serverAnswers() {
		return true
	}
	// The views say the loop waits (not that its worker stopped) for as long as it does.
	l.noteSilentStart(o.silent.since)
	defer l.noteSilentStart(time.Time{})
	for {
		s := ralph.StartWhileSilent(o.startFacts(n), 0)
		if s.Escalate != "" {
			o.escalateSilence(s.Escalate)
		}
		if len(s.Lines)+len(s.Events) > 0 || s.Ended {
			l.transition(st, agent{dead: true}, s.Decision)
		}
		o.silent.toldStart = n
		if s.Ended || !l.pauseFor(s.Retry) {
			return false
		}
		if l.serverAnswers() {
			return true
		}
	}
}

// serverAnswers asks the silent tmux server again; once it answers, the outage is over.
// Whatever else it says (that it is gone, say), the start finds out.
func (l *Loop) serverAnswers() bool {
	if _, err := l.cfg.Tmux.Panes(); errors.Is(err, tmux.ErrNotAnswering) {
		return false
	}
	l.outage.answered()
	return true
}

// pauseFor waits d, looking at the loop's status meanwhile; it reports whether the loop
// still runs (a stop, a pause or the loop's context ending cut the wait short).
func (l *Loop) pauseFor(d time.Duration) bool {
	until := l.cfg.Clock.Now().Add(d)
	for {
		if l.abortRequested() {
			l.abortNow(agent{dead: true})
			return false
		}
		if l.statusNow() != ralph.StatusRunning {
			return false
		}
		left := until.Sub(l.cfg.Clock.Now())
		if left <= 0 {
			return true
		}
		l.wait(min(left, l.statusPoll()), nil, nil)
	}
}

// noteSilentStart records since when the next iteration has waited for the tmux server
// (zero: it no longer waits).
func (l *Loop) noteSilentStart(since time.Time) {
	l.rec.update(func(s *ralph.State) error {
		s.TmuxSilentSince = ""
		if !since.IsZero() {
			s.TmuxSilentSince = since.Format(ralph.TimeFormat)
		}
		return nil
	})
}
