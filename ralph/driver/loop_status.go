package driver

import (
	"fmt"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state/eventlog"
)

// The loop's status as the driver reads it from its state, and the abort that ends it at once.

func (l *Loop) statusNow() ralph.Status {
	st, err := l.cfg.Dir.Load()
	if err != nil {
		return ralph.StatusStopped
	}
	return st.Status
}

func (l *Loop) abortRequested() bool {
	return l.ctx().Err() != nil
}

// abortNow ends the agent at once and leaves the loop paused.
func (l *Loop) abortNow(a agent) {
	l.aborted = true
	l.view.end(a, 0)
	l.rec.say("stopping now, agent ended")
	underway := 0
	l.rec.update(func(s *ralph.State) error {
		if s.Phase.Underway() {
			underway = s.CurrentIteration
		}
		if s.Status == ralph.StatusRunning {
			s.Status = ralph.StatusPaused
			s.PausedAt = l.rec.now()
		}
		s.ExitReason = "signal"
		s.Phase = ralph.PhaseEnded
		return nil
	})
	l.rec.logEvent("PAUSE", fmt.Sprintf("iteration %d ended by signal", l.iteration()))
	if underway > 0 {
		l.rec.tell(eventlog.Event{Kind: eventlog.IterationEnded, Iteration: underway, How: ralph.HowStopped, Reason: "signal"})
	}
}

func (l *Loop) iteration() int {
	st, err := l.cfg.Dir.Load()
	if err != nil {
		return 0
	}
	return st.CurrentIteration
}
