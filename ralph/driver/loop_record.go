package driver

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// What a loop says (its output) and records (its state, its event log), and how it copes
// with files it cannot write.

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
func (l *Loop) supervisionSay(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	l.supervisionPrint(text)
	l.logEvent(supervisionEvent, text)
}

func (l *Loop) supervisionPrint(text string) { fmt.Fprintf(l.cfg.Out, "🛡️  Regent: %s\n", text) }

// supervisionEvent is the kind of the event log's entries that are supervision lines.
const supervisionEvent = "REGENT"

// sayLines prints a decision's lines, supervision's under their own label.
func (l *Loop) sayLines(lines []ralph.Line) {
	for _, ln := range lines {
		if ln.Supervision {
			l.supervisionPrint(ln.Text)
		} else {
			l.say("%s", ln.Text)
		}
	}
}

func (l *Loop) say(format string, args ...any) {
	fmt.Fprintf(l.cfg.Out, "[ralph] "+l.cfg.Name+": "+format+"\n", args...)
}

// update changes the loop state; a write that fails is reported, not ignored.
func (l *Loop) update(fn func(*ralph.State) error) {
	_, err := l.cfg.Dir.Update(fn)
	l.recorded(err)
}

// note changes what the state says about the running agent only (see Dir.Note).
func (l *Loop) note(fn func(*ralph.State) error) {
	_, err := l.cfg.Dir.Note(fn)
	l.recorded(err)
}

func (l *Loop) updateSupervision(fn func(*ralph.SupervisionState)) {
	l.recorded(l.cfg.Dir.UpdateSupervision(fn))
}

func (l *Loop) logEvent(kind, text string) {
	l.recorded(l.cfg.Dir.LogEvent(l.cfg.Clock.Now(), kind, text))
}

// recorded reports a failed write (a full disk, a read-only state directory) once, not at
// every retry: the run loop retries after a pause (see Loop.run) and says when a whole pass
// went without a failure. Events a recorded decision could not log are kept (see UnloggedError).
func (l *Loop) recorded(err error) {
	if err == nil || errors.Is(err, ralph.ErrNoLoop) || state.IsCorrupt(err) {
		return
	}
	l.keepUnlogged(err)
	l.writeErr = writeFailure(err)
	if l.writeErr == l.reported {
		return
	}
	l.reported = l.writeErr
	l.say("cannot record the loop's progress: %v", err)
}

// retryWrites is the run loop's answer to a pass in which a write failed: a pause, longer each
// pass in a row, before the pass is made again; after a pass without failure, that writing
// works again is said (once).
func (l *Loop) retryWrites() {
	l.writePending()
	if l.writeErr != "" {
		l.writeErr = ""
		l.writeFails++
		l.wait(writeBackoff(l.writeFails), nil, nil)
		return
	}
	if l.reported != "" {
		l.reported, l.writeFails = "", 0
		l.say("the loop's files can be written again")
	}
}

func (l *Loop) now() string { return l.cfg.Clock.Now().Format(ralph.TimeFormat) }

// writeFailure is the kind of a failed write: the system's error (no space left, read-only
// file system) rather than the message, which names a different temporary file each time.
func writeFailure(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}
