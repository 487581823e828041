package ralph

import (
	"errors"
	"time"
)

// A decision is recorded in two writes: the state, then its events in iterations.log. On a
// full disk the second can fail after the first worked; the decision then stands and is not
// taken again, so its events must be kept and logged later, or they are lost.

// UnloggedError is a decision that was recorded in the state but whose events (from the
// first one that failed) are not in the log yet.
type UnloggedError struct {
	At     time.Time
	Events []Event
	Err    error
}

func (e *UnloggedError) Error() string { return e.Err.Error() }
func (e *UnloggedError) Unwrap() error { return e.Err }

// keepUnlogged holds on to the events an error says were not logged.
func (l *Loop) keepUnlogged(err error) {
	var ue *UnloggedError
	if errors.As(err, &ue) {
		l.unlogged = append(l.unlogged, *ue)
	}
}

// logUnlogged logs the events kept from decisions that could not log them, in their order
// and at their own time; what still cannot be logged stays kept. It reports whether nothing
// is left.
func (l *Loop) logUnlogged() bool {
	for len(l.unlogged) > 0 {
		ue := &l.unlogged[0]
		for len(ue.Events) > 0 {
			if err := l.cfg.Dir.LogEvent(ue.At, ue.Events[0].Kind, ue.Events[0].Text); err != nil {
				l.recorded(err)
				return false
			}
			ue.Events = ue.Events[1:]
		}
		l.unlogged = l.unlogged[1:]
	}
	return true
}
