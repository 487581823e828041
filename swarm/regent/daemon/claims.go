package daemon

import (
	"fmt"
	"io"
	"time"

	"github.com/swarm-dev/swarm/ralph/driver"
)

// Loops the Regent could not claim: claiming writes the loop's state (its monitor's pid), which
// a full disk refuses. Tried again every second, such a loop would cost a goroutine, a read
// of its files and two lines of each log every second, the lines taking the room its state
// needs once the disk has some again; instead it is tried again after a pause that grows
// (as a loop's own writes are), and the failure is said once, in both logs, until a claim
// works again.

// claimFailures are a loop's claims in a row that failed, and when the next may be made.
type claimFailures struct {
	n    int
	next time.Time
}

// claimFailed notes that the loop could not be claimed for err and says so, once in a row.
func (r *daemon) claimFailed(name string, err error, out io.Writer) {
	r.mu.Lock()
	f := r.claimFails[name]
	f.n++
	f.next = time.Now().Add(driver.WriteBackoff(f.n))
	r.claimFails[name] = f
	first := f.n == 1
	r.mu.Unlock()
	if !first {
		return
	}
	fmt.Fprintf(out, "swarm: error: %v (trying again after a pause, longer each time)\n", err)
	r.say("loop %s: cannot be claimed: %v; trying again after a pause, longer each time", name, err)
}

// claimed notes that a claim worked, and says so after failures.
func (r *daemon) claimed(name string) {
	r.mu.Lock()
	failed := r.claimFails[name].n
	delete(r.claimFails, name)
	r.mu.Unlock()
	if failed > 0 {
		r.say("loop %s: claimed after %d failed attempts", name, failed)
	}
}

// claimFailing reports whether the loop's last claim failed.
func (r *daemon) claimFailing(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.claimFails[name].n > 0
}

// claimPaused reports whether the loop's next claim is not due yet: a scan woken meanwhile
// (another loop ended, a command) leaves it for later.
func (r *daemon) claimPaused(name string, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return now.Before(r.claimFails[name].next)
}

// retryIn is how long a loop whose monitor ended while it still needed one waits before it is
// driven again: retryAfter, or until its next claim is due.
func (r *daemon) retryIn(name string) time.Duration {
	r.mu.Lock()
	next := r.claimFails[name].next
	r.mu.Unlock()
	return max(retryAfter, time.Until(next))
}

// forgetClaims forgets the failed claims of a loop that needs no monitor any more.
func (r *daemon) forgetClaims(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.claimFails, name)
}
