package ralph

import (
	"fmt"
	"time"
)

// How stored times and durations read in status, logs and summaries.

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

// FormatDuration renders an iteration's duration as the loop log shows it: 42s, 3m 42s, 1h 2m 3s.
func FormatDuration(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s < 0 {
		s = 0
	}
	h, m, sec := s/3600, (s%3600)/60, s%60
	switch {
	case h > 0:
		return fmt.Sprintf("%dh %dm %ds", h, m, sec)
	case m > 0:
		return fmt.Sprintf("%dm %ds", m, sec)
	default:
		return fmt.Sprintf("%ds", sec)
	}
}

// CompactDuration is the iterations.log form: 5m42s.
func CompactDuration(d time.Duration) string {
	return d.Round(time.Second).String()
}
