package driver

import (
	"errors"

	"github.com/swarm-dev/swarm/ralph"
)

// A decision is recorded in two writes: the state, then its events in iterations.log; an
// iteration's end adds its record to iterations.jsonl. On a full disk a later write can fail
// after an earlier one worked: the decision then stands and is not taken again, so what it
// could not append is kept and appended once there is room, or it would be lost.

// keepUnlogged holds on to the events an error says were not logged, to log them later at
// their own time.
func (l *Loop) keepUnlogged(err error) {
	var ue *ralph.UnloggedError
	if !errors.As(err, &ue) {
		return
	}
	for _, e := range ue.Events {
		at := ue.At
		l.pending = append(l.pending, func() error { return l.cfg.Dir.LogEvent(at, e.Kind, e.Text) })
	}
}

// appendOrKeep makes an append now, after any kept before it, or keeps it for later.
func (l *Loop) appendOrKeep(write func() error) {
	if l.writePending() {
		err := write()
		if err == nil {
			return
		}
		l.recorded(err)
	}
	l.pending = append(l.pending, write)
}

// writePending makes the appends kept from earlier failures, in their order; what still
// cannot be written stays kept. It reports whether nothing is left.
func (l *Loop) writePending() bool {
	for len(l.pending) > 0 {
		if err := l.pending[0](); err != nil {
			l.recorded(err)
			return false
		}
		l.pending = l.pending[1:]
	}
	return true
}

// endRetries bounds how often a loop that has ended still tries to append what it kept: with
// the growing pause, a few minutes for the disk to get room again.
const endRetries = 8

// writePendingAtEnd is the last chance for what a loop kept: it retries for a while before
// the loop's driver lets go, and says what is lost if the disk never got room.
func (l *Loop) writePendingAtEnd() {
	for n := 1; !l.writePending(); n++ {
		if n > endRetries || l.abortRequested() {
			l.say("%d log entries or iteration records could not be written and are lost", len(l.pending))
			return
		}
		l.wait(writeBackoff(n), nil, nil)
	}
}
