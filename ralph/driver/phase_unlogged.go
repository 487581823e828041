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
func (r *recorder) keepUnlogged(err error) {
	var ue *ralph.UnloggedError
	if !errors.As(err, &ue) {
		return
	}
	for _, e := range ue.Events {
		at := ue.At
		r.pending = append(r.pending, func() error { return r.dir.LogEvent(at, e.Kind, e.Text) })
	}
}

// appendOrKeep makes an append now, after any kept before it, or keeps it for later.
func (r *recorder) appendOrKeep(write func() error) {
	if r.writePending() {
		err := write()
		if err == nil {
			return
		}
		r.recorded(err)
	}
	r.pending = append(r.pending, write)
}

// writePending makes the appends kept from earlier failures, in their order; what still
// cannot be written stays kept. It reports whether nothing is left.
func (r *recorder) writePending() bool {
	for len(r.pending) > 0 {
		if err := r.pending[0](); err != nil {
			r.recorded(err)
			return false
		}
		r.pending = r.pending[1:]
	}
	return true
}

// endRetries bounds how often a loop that has ended still tries to append what it kept: with
// the growing pause, a few minutes for the disk to get room again.
const endRetries = 8

// writePendingAtEnd is the last chance for what a loop kept: it retries for a while before
// the loop's driver lets go, and says what is lost if the disk never got room.
func (r *recorder) writePendingAtEnd() {
	for n := 1; !r.writePending(); n++ {
		if n > endRetries || r.drv.abortRequested() {
			r.say("%d log entries or iteration records could not be written and are lost", len(r.pending))
			return
		}
		r.drv.wait(WriteBackoff(n), nil, nil)
	}
}
