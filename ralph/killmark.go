package ralph

import (
	"os"
	"path/filepath"
	"time"

	"github.com/swarm-dev/swarm/state"
)

// A kill that cannot be recorded (a full disk) leaves an empty file instead: creating one needs
// no room for data, and every reader of the loop's state honours it, so the kill is final
// whatever happens before the state can be written again (a Regent's death, a reboot). The
// first writer that can records the kill and removes the mark.

func (d Dir) killMarkPath() string { return filepath.Join(d.Path, "killed") }

// MarkKilled leaves the mark of a kill that could not be recorded.
func (d Dir) MarkKilled() error {
	f, err := os.OpenFile(d.killMarkPath(), os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// KillMarked reports whether a kill waits to be recorded.
func (d Dir) KillMarked() bool {
	_, err := os.Stat(d.killMarkPath())
	return err == nil
}

// honourKill makes st what it is once the marked kill is recorded, in memory only.
func (d Dir) honourKill(st *State, now time.Time) Decision {
	if !d.KillMarked() {
		return Decision{}
	}
	dec := Killed(st)
	dec.applyTo(st, now)
	return dec
}

// settleKill records a marked kill under the loop lock (st as read there) and removes the mark
// once it is; while it cannot be, st still says the loop was killed.
func (d Dir) settleKill(st *State, now time.Time) {
	if !d.KillMarked() {
		return
	}
	was := *st
	dec := d.honourKill(st, now)
	if err := state.WriteJSON(d.StatePath(), st); err != nil {
		return
	}
	d.tellChange(&was, st, dec)
	for _, e := range dec.Events {
		if err := d.LogEvent(now, e.Kind, e.Text); err != nil {
			return
		}
	}
	_ = os.Remove(d.killMarkPath())
}
