package driver

import (
	"errors"
	"fmt"
	"io"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/state/eventlog"
)

// What a loop says (its output) and records (its state, its event log), and how it copes
// with files it cannot write.

// recorder says and records for the loop, and keeps what it could not write until it can:
// one place for the write failures, so that every phase meets a full disk the same way, and
// says so once, however many of its writes fail.
type recorder struct {
	out   io.Writer
	name  string
	dir   ralph.Dir
	clock Clock
	drv   recorderNeeds
	writeFailures
	tellFailed bool // that the event log cannot be written was said
}

// recorderNeeds are what the recording asks of the rest of the loop: a pause between retries
// (which a loop told to stop cuts short) and whether it was told to stop.
type recorderNeeds interface {
	wait(d time.Duration, exited <-chan struct{}, woken <-chan struct{})
	abortRequested() bool
}

func newRecorder(cfg *Config, drv recorderNeeds) *recorder {
	return &recorder{out: cfg.Out, name: cfg.Name, dir: cfg.Dir, clock: cfg.Clock, drv: drv}
}

// writeFailures are what the driver keeps of the writes that failed: what to say about them
// once, how long to wait before the next pass, and what is still to be appended.
type writeFailures struct {
	writeErr   string         // the kind of write failure this pass met (see writeFailure)
	reported   string         // the kind of write failure said last, until a pass goes without one
	writeFails int            // passes in a row that met a write failure
	pending    []func() error // appends a full disk refused after their decision was recorded
}

// supervisionSay reports what supervision did, in the loop's output and in its event log
// (where ralph logs shows it among the iterations).
func (r *recorder) supervisionSay(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	r.supervisionPrint(text)
	r.logEvent(supervisionEvent, text)
}

func (r *recorder) supervisionPrint(text string) { fmt.Fprintf(r.out, "🛡️  Regent: %s\n", text) }

// supervisionEvent is the kind of the event log's entries that are supervision lines.
const supervisionEvent = "REGENT"

// sayLines prints a decision's lines, supervision's under their own label.
func (r *recorder) sayLines(lines []ralph.Line) {
	for _, ln := range lines {
		if ln.Supervision {
			r.supervisionPrint(ln.Text)
		} else {
			r.say("%s", ln.Text)
		}
	}
}

func (r *recorder) say(format string, args ...any) {
	fmt.Fprintf(r.out, "[ralph] "+r.name+": "+format+"\n", args...)
}

// update changes the loop state; a write that fails is reported, not ignored. A change that
// makes the agent wait for a person (a dialog, a permission), or ends such a wait, is timed
// here, where every such change passes, for the iteration's record.
func (r *recorder) update(fn func(*ralph.State) error) {
	_, err := r.dir.Update(func(st *ralph.State) error {
		waited := st.WaitsForPerson()
		if err := fn(st); err != nil {
			return err
		}
		st.PersonWaitChanged(waited, r.clock.Now())
		return nil
	})
	r.recorded(err)
}

// note changes what the state says about the running agent only (see Dir.Note).
func (r *recorder) note(fn func(*ralph.State) error) {
	_, err := r.dir.Note(fn)
	r.recorded(err)
}

func (r *recorder) updateSupervision(fn func(*ralph.SupervisionState)) {
	r.recorded(r.dir.UpdateSupervision(fn))
}

func (r *recorder) logEvent(kind, text string) {
	r.recorded(r.dir.LogEvent(r.clock.Now(), kind, text))
}

// tell writes events to the state directory's event log. One that cannot be written holds
// nothing up and is not tried again; that the log cannot be written is said once.
func (r *recorder) tell(events ...eventlog.Event) {
	if err := r.dir.Tell(events...); err != nil && !r.tellFailed {
		r.tellFailed = true
		r.say("cannot write the event log: %v", err)
	}
}

// recorded reports a failed write (a full disk, a read-only state directory) once, not at
// every retry: the run loop retries after a pause (see Loop.run) and says when a whole pass
// went without a failure. Events a recorded decision could not log are kept (see UnloggedError).
func (r *recorder) recorded(err error) {
	if err == nil || errors.Is(err, ralph.ErrNoLoop) || state.IsCorrupt(err) {
		return
	}
	r.keepUnlogged(err)
	r.writeErr = writeFailure(err)
	if r.writeErr == r.reported {
		return
	}
	r.reported = r.writeErr
	r.say("cannot record the loop's progress: %v", err)
}

// unrecorded reports whether err says a decision's state could not be written (a full disk):
// the decision stands undone, to be taken again. Its events not logged after the state was
// written, or a loop whose state is gone or corrupt, are not that.
func unrecorded(err error) bool {
	var ue *ralph.UnloggedError
	return err != nil && !errors.As(err, &ue) && !errors.Is(err, ralph.ErrNoLoop) && !state.IsCorrupt(err)
}

// retryWrites is the run loop's answer to a pass in which a write failed: a pause, longer each
// pass in a row, before the pass is made again; after a pass without failure, that writing
// works again is said (once).
func (r *recorder) retryWrites() {
	r.writePending()
	if r.writeErr != "" {
		r.writeErr = ""
		r.writeFails++
		r.drv.wait(WriteBackoff(r.writeFails), nil, nil)
		return
	}
	if r.reported != "" {
		r.reported, r.writeFails = "", 0
		r.say("the loop's files can be written again")
	}
}

func (r *recorder) now() string { return r.clock.Now().Format(ralph.TimeFormat) }

// writeFailure is the kind of a failed write: the system's error (no space left, read-only
// file system) rather than the message, which names a different temporary file each time.
func writeFailure(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}
