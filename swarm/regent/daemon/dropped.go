package daemon

import (
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/regent"
)

// Loops dropped by a kill that could not be recorded (a full disk): the Regent drives them no
// more, and records their kill as soon as it can.

// keepDropped takes up a loop killed by a predecessor that could not record it: it is not
// driven, and its kill is recorded as soon as it can be.
func (r *daemon) keepDropped(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropped[name] = true
	delete(r.claimFails, name)
}

// rescanIn is how long the Regent waits for a wake-up before it looks again: a kill still to
// be recorded is tried again soon.
func (r *daemon) rescanIn() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.dropped) > 0 {
		return dropRetry
	}
	return rescanEvery
}

// dropRetry is how often a kill that could not be recorded is tried again.
const dropRetry = 2 * time.Second

// recordDropped records the kill of loops dropped while it could not be written (a full
// disk), now that it may be: once it is, they are over and nothing more is owed them.
func (r *daemon) recordDropped() {
	r.mu.Lock()
	var names []string
	for name := range r.dropped {
		if r.loops[name] == nil {
			names = append(names, name)
		}
	}
	r.mu.Unlock()
	for _, name := range names {
		ld := ralph.DirFor(r.m.Dir(), name)
		if ld.KillMarked() {
			// Any write under the loop lock records a marked kill first.
			_, _ = ld.Update(func(*ralph.State) error { return nil })
			if ld.KillMarked() {
				continue
			}
			r.say("loop %s: its kill is recorded now", name)
		} else if regent.NeedsMonitor(ld) {
			if _, _, err := ld.Transition(time.Now(), func(s *ralph.State) (ralph.Decision, error) { return ralph.Killed(s), nil }); err != nil {
				continue
			}
			r.say("loop %s: its kill is recorded now", name)
		}
		r.mu.Lock()
		delete(r.dropped, name)
		r.mu.Unlock()
	}
}
