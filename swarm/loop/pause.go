package loop

import (
	"time"

	"github.com/swarm-dev/swarm/ralph"
)

// Pause pauses the named loop through its own transition, decided on the state as it is under the
// loop lock: a driver that stops or fails the loop meanwhile is never overruled. The driver
// lets the current agent finish and starts no new iteration. ralph.ErrUnchanged says the loop
// was paused already, ralph.ErrNotRunning that it is over.
func (l Loops) Pause(name string) error {
	ld := ralph.DirFor(l.m.Dir(), name)
	_, _, err := ld.Transition(time.Now(), func(s *ralph.State) (ralph.Decision, error) {
		return ralph.Pause(s, "paused by user", "paused")
	})
	return err
}
