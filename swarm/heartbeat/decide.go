package heartbeat

import "time"

// Step is what is to be done about one heartbeat now.
type Step struct {
	// Send says a beat is due: send the message, then record it with Sent.
	Send bool
	// Status is the heartbeat's status after this step (it may have expired or stopped).
	Status string
	// Wake is when this heartbeat needs looking at next; zero when it never does.
	Wake time.Time
}

// Decide is what a heartbeat calls for at now, given whether its worker still runs. A beat
// missed while nobody was watching is sent once, not once per interval missed.
func Decide(h *State, workerRunning bool, now time.Time) Step {
	if h.Status != Active {
		return Step{Status: h.Status}
	}
	if !workerRunning {
		return Step{Status: Stopped}
	}
	exp := h.Expiry()
	if !exp.IsZero() && !now.Before(exp) {
		return Step{Status: Expired}
	}
	next := h.NextBeat()
	send := !now.Before(next)
	if send {
		next = now.Add(h.Interval())
	}
	if !exp.IsZero() && exp.Before(next) {
		next = exp
	}
	return Step{Send: send, Status: Active, Wake: next}
}

// Sent records a beat sent at now.
func (h *State) Sent(now time.Time) {
	at := now.Format(time.RFC3339Nano)
	h.LastBeatAt = &at
	h.BeatCount++
}
