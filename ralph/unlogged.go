package ralph

import "time"

// UnloggedError is a decision that was recorded in the state but whose events (from the
// first one that failed) are not in the log yet.
type UnloggedError struct {
	At     time.Time
	Events []Event
	Err    error
}

func (e *UnloggedError) Error() string { return e.Err.Error() }
func (e *UnloggedError) Unwrap() error { return e.Err }
