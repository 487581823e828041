package serve

import (
	"sync"
	"time"
)

// Failed logins are limited per address: after loginTries within loginWindow, the address
// is refused (429) until the oldest of them is loginWindow old.
const (
	loginTries  = 5
	loginWindow = time.Minute
	// maxAddrs bounds how many addresses are remembered; the stalest go first.
	maxAddrs = 4096
)

// limiter remembers each address's recent failed logins.
type limiter struct {
	mu     sync.Mutex
	tries  int
	window time.Duration
	failed map[string][]time.Time // the last tries failures, oldest first
}

func newLimiter(tries int, window time.Duration) *limiter {
	return &limiter{tries: tries, window: window, failed: map[string][]time.Time{}}
}

// recent are addr's failures within the window before now.
func (l *limiter) recent(addr string, now time.Time) []time.Time {
	var kept []time.Time
	for _, t := range l.failed[addr] {
		if now.Sub(t) < l.window {
			kept = append(kept, t)
		}
	}
	return kept
}

// locked says whether addr is refused at now, and for how long still.
func (l *limiter) locked(addr string, now time.Time) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.recent(addr, now)
	if len(r) < l.tries {
		return 0, false
	}
	return r[len(r)-l.tries].Add(l.window).Sub(now), true
}

// fail counts a failed login of addr at now; true when it locks the address.
func (l *limiter) fail(addr string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := append(l.recent(addr, now), now)
	if len(r) > l.tries {
		r = r[len(r)-l.tries:]
	}
	if _, known := l.failed[addr]; !known && len(l.failed) >= maxAddrs {
		l.forgetStale(now)
	}
	l.failed[addr] = r
	return len(r) == l.tries
}

// forgetStale drops the addresses with no failure in the window, else the one failed
// longest ago.
func (l *limiter) forgetStale(now time.Time) {
	oldest, at := "", now
	for a, ts := range l.failed {
		last := ts[len(ts)-1]
		if now.Sub(last) >= l.window {
			delete(l.failed, a)
		} else if last.Before(at) {
			oldest, at = a, last
		}
	}
	if len(l.failed) >= maxAddrs {
		delete(l.failed, oldest)
	}
}
