package ralph

import "time"

// How stored times read in status, logs and summaries.

// FormatTime renders a stored time for people, in local time: 2024-01-15 10:30:00.
func FormatTime(stored string) string {
	t := ParseTime(stored)
	if t.IsZero() {
		return stored
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

// ParseTime reads a stored time; the zero time when absent or malformed. Times without a
// zone are local times.
func ParseTime(stored string) time.Time {
	if t, err := time.Parse(time.RFC3339Nano, stored); err == nil {
		return t
	}
	if t, err := time.ParseInLocation(legacyTimeFormat, stored, time.Local); err == nil {
		return t
	}
	return time.Time{}
}

// RunningTime is how long the loop has run (until it ended), leaving out the time it spent
// paused.
func (st *State) RunningTime(now time.Time) time.Duration {
	started := ParseTime(st.Started)
	if started.IsZero() {
		return 0
	}
	end := now
	if t := ParseTime(st.Ended); !t.IsZero() {
		end = t
	}
	paused := time.Duration(st.PausedSeconds * float64(time.Second))
	if at := ParseTime(st.PausedAt); !at.IsZero() && end.After(at) {
		paused += end.Sub(at)
	}
	if d := end.Sub(started) - paused; d > 0 {
		return d
	}
	return 0
}
