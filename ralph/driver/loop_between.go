package driver

import (
	"github.com/swarm-dev/swarm/ralph"
)

// Between iterations and loops: the wait after a failed iteration, and a fresh loop in the
// same worker.

// freshLoop readies the monitor for the next loop in the same worker: the done patterns and
// prompt may differ, so they are compiled afresh, and a DONE file was the last loop's word.
func (l *Loop) freshLoop() {
	l.forget()
	for _, path := range l.cfg.Dir.RemoveDone() {
		l.rec.say("removed %s: it ended the previous loop", path)
	}
}

// backoff waits out the retry delay; a pause or stop ends the wait at once. A wait that ran
// its course is followed by the next iteration, which supervision announces.
func (l *Loop) backoff(st *ralph.State) {
	until := ralph.ParseTime(st.BackoffUntil)
	began, waited := l.cfg.Clock.Now(), true
	for l.cfg.Clock.Now().Before(until) {
		if l.abortRequested() {
			l.abortNow(agent{dead: true})
			waited = false
			break
		}
		if s := l.statusNow(); s != ralph.StatusRunning {
			waited = false
			break
		}
		d := until.Sub(l.cfg.Clock.Now())
		if d > l.statusPoll() {
			d = l.statusPoll()
		}
		l.wait(d, nil, nil)
	}
	over := l.cfg.Clock.Now()
	l.rec.update(func(s *ralph.State) error {
		s.AddWait(ralph.WaitBackoff, over.Sub(began))
		if s.Phase == ralph.PhaseBackoff {
			s.Phase = ralph.PhaseEnded
			s.BackoffUntil = ""
		}
		return nil
	})
	if waited && l.statusNow() == ralph.StatusRunning {
		l.transition(st, agent{dead: true}, ralph.Restarting(st.CurrentIteration+1, limits(st)))
	}
}

// finish acts once on a loop that has ended: its summary.md, then the features (its
// end-of-loop hook). A feature the loop's context cut short (a hook) leaves the loop
// unfinished, for its next driver to finish.
func (l *Loop) finish() {
	st, err := l.cfg.Dir.Load()
	if err != nil || st.Finalized || (st.Status != ralph.StatusStopped && st.Status != ralph.StatusFailed) {
		return
	}
	l.rec.recorded(l.cfg.Dir.WriteSummary(l.cfg.Clock.Now()))
	if l.features.loopEnded(st) {
		return
	}
	l.rec.update(func(s *ralph.State) error { s.Finalized = true; return nil })
}
