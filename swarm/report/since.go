package report

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// DefaultSince is how far back a report looks when not told: a day covers a night away and
// the evening before it, whenever the report is asked for the morning after.
const DefaultSince = 24 * time.Hour

// daysRE is a duration that begins with days, which Go's durations do not have: "2d", "1d12h".
var daysRE = regexp.MustCompile(`^(\d+)d(.*)$`)

// ParseSince reads --since: a duration back from now ("12h", "90m", "2d", "1d12h"), a time of
// day (the last time it was "18:00"), a date (its midnight: "2024-05-01"), a date and time
// ("2024-05-01 18:00", "2024-05-01T18:00:00"), or RFC 3339 with a zone. A time without a zone
// is in loc. It cannot be after now.
func ParseSince(s string, now time.Time, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if d, ok, err := sinceDuration(s); ok || err != nil {
		if err != nil {
			return time.Time{}, err
		}
		return now.Add(-d), nil
	}
	t, err := sinceTime(s, now, loc)
	if err != nil {
		return time.Time{}, err
	}
	if t.After(now) {
		return time.Time{}, fmt.Errorf("--since %s is in the future", s)
	}
	return t, nil
}

// sinceDuration reads a duration; ok is false for what is no duration at all.
func sinceDuration(s string) (time.Duration, bool, error) {
	var days time.Duration
	rest := s
	if m := daysRE.FindStringSubmatch(s); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil || n > 3650 {
			return 0, true, fmt.Errorf("--since %s: too many days", s)
		}
		days, rest = time.Duration(n)*24*time.Hour, m[2]
		if rest == "" {
			return days, true, nil
		}
	}
	d, err := time.ParseDuration(rest)
	switch {
	case err != nil && days > 0:
		return 0, true, fmt.Errorf("invalid --since '%s' (a duration like 12h, 2d or 1d12h)", s)
	case err != nil:
		return 0, false, nil
	case d < 0:
		return 0, true, fmt.Errorf("--since %s: a duration back from now cannot be negative", s)
	}
	return days + d, true, nil
}

// sinceTime reads a time of day, a date, or a date and time.
func sinceTime(s string, now time.Time, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	for _, layout := range []string{"15:04:05", "15:04"} {
		if c, err := time.Parse(layout, s); err == nil {
			local := now.In(loc)
			t := time.Date(local.Year(), local.Month(), local.Day(), c.Hour(), c.Minute(), c.Second(), 0, loc)
			if t.After(now) {
				t = t.AddDate(0, 0, -1)
			}
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("invalid --since '%s' (a duration like 12h or 2d, a time of day like 18:00, or a date like 2024-05-01 18:00)", s)
}
