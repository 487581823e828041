package ralph

import (
	"errors"
	"fmt"

	"github.com/swarm-dev/swarm/state"
)

// What a loop says (its output) and records (its state, its event log), and how it copes
// with files it cannot write.

// regentSay reports what the Regent did, in the loop's output and in its event log (where ralph
// logs shows it among the iterations).
func (l *Loop) regentSay(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	l.regentPrint(text)
	l.logEvent(regentEvent, text)
}

func (l *Loop) regentPrint(text string) { fmt.Fprintf(l.cfg.Out, "🛡️  Regent: %s\n", text) }

// regentEvent is the kind of the event log's entries that are the Regent's lines.
const regentEvent = "REGENT"

func (l *Loop) say(format string, args ...any) {
	fmt.Fprintf(l.cfg.Out, "[ralph] "+l.cfg.Name+": "+format+"\n", args...)
}

// update changes the loop state; a write that fails is reported, not ignored.
func (l *Loop) update(fn func(*State) error) {
	_, err := l.cfg.Dir.Update(fn)
	l.recorded(err)
}

// note changes what the state says about the running agent only (see Dir.Note).
func (l *Loop) note(fn func(*State) error) {
	_, err := l.cfg.Dir.Note(fn)
	l.recorded(err)
}

func (l *Loop) updateRegent(fn func(*RegentState)) { l.recorded(l.cfg.Dir.UpdateRegent(fn)) }

func (l *Loop) logEvent(kind, text string) {
	l.recorded(l.cfg.Dir.LogEvent(l.cfg.Clock.Now(), kind, text))
}

// recorded reports a failed write (a full disk, a read-only state directory) once, not at
// every poll, and notes when writing works again.
func (l *Loop) recorded(err error) {
	if err == nil {
		if l.writeErr != "" {
			l.writeErr = ""
			l.say("the loop's files can be written again")
		}
		return
	}
	if errors.Is(err, ErrNoLoop) || state.IsCorrupt(err) || err.Error() == l.writeErr {
		return
	}
	l.writeErr = err.Error()
	l.say("cannot record the loop's progress: %v", err)
}

func (l *Loop) now() string { return l.cfg.Clock.Now().Format(TimeFormat) }
