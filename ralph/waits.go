package ralph

import "time"

// Waits: the time a loop spends waiting rather than working, kept where the loop decides to
// wait or learns it may go on, so what reads the records (swarm report) never has to guess it
// from the gaps between iterations.

// Waits is time waited, in milliseconds, by what was waited for.
type Waits struct {
	BackoffMs int64 `json:"backoffMs,omitempty"` // a retry's backoff after a failed iteration
	LimitMs   int64 `json:"limitMs,omitempty"`   // the agent's usage limit, until its reset
	PersonMs  int64 `json:"personMs,omitempty"`  // a dialog or a permission prompt, until answered
}

// Add adds o.
func (w *Waits) Add(o Waits) {
	w.BackoffMs += o.BackoffMs
	w.LimitMs += o.LimitMs
	w.PersonMs += o.PersonMs
}

// Total is all the time waited.
func (w Waits) Total() time.Duration {
	return time.Duration(w.BackoffMs+w.LimitMs+w.PersonMs) * time.Millisecond
}

// WaitKind is what a loop waited for.
type WaitKind int

// The things a loop waits for.
const (
	WaitBackoff WaitKind = iota // the retry delay after a failure
	WaitLimit                   // a usage limit's reset
	WaitPerson                  // a person, at a dialog or a permission prompt
)

// AddWait counts d waited for kind, for the next iteration's record to take.
func (st *State) AddWait(kind WaitKind, d time.Duration) {
	if d <= 0 {
		return
	}
	if st.Waited == nil {
		st.Waited = &Waits{}
	}
	ms := d.Milliseconds()
	switch kind {
	case WaitBackoff:
		st.Waited.BackoffMs += ms
	case WaitLimit:
		st.Waited.LimitMs += ms
	case WaitPerson:
		st.Waited.PersonMs += ms
	}
}

// WaitsForPerson reports whether the agent waits for a person: at a dialog, or for a
// permission.
func (st *State) WaitsForPerson() bool { return st.BlockedBy != "" || st.NeedsPermission != "" }

// PersonWaitChanged times a wait for a person that a change of the state began or ended;
// waited is whether the agent waited for one before the change.
func (st *State) PersonWaitChanged(waited bool, now time.Time) {
	switch waits := st.WaitsForPerson(); {
	case waits && !waited:
		st.PersonWaitBegins(now)
	case !waits && waited:
		st.PersonWaitEnds(now)
	}
}

// PersonWaitBegins notes when the agent began to wait for a person; a wait already under way
// (one dialog after another) keeps its start.
func (st *State) PersonWaitBegins(now time.Time) {
	if st.PersonSince == "" {
		st.PersonSince = now.Format(TimeFormat)
	}
}

// PersonWaitEnds counts a wait for a person that is over (answered, or its agent ended).
func (st *State) PersonWaitEnds(now time.Time) {
	if since := ParseTime(st.PersonSince); !since.IsZero() {
		st.AddWait(WaitPerson, now.Sub(since))
	}
	st.PersonSince = ""
}

// TakeWaits hands what the loop waited since its last iteration's record to the record of the
// iteration that ends now; a wait for a person still under way ends with the iteration.
func (st *State) TakeWaits(now time.Time) *Waits {
	st.PersonWaitEnds(now)
	w := st.Waited
	st.Waited = nil
	return w
}
