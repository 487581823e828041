package report

import (
	"strings"
	"testing"
	"time"
)

func TestParseSince(t *testing.T) {
	loc := time.FixedZone("CEST", 2*3600)
	now := time.Date(2024, 5, 2, 9, 30, 0, 0, loc) // a Thursday morning
	for in, want := range map[string]time.Time{
		"12h":                        now.Add(-12 * time.Hour),
		"90m":                        now.Add(-90 * time.Minute),
		"2d":                         now.Add(-48 * time.Hour),
		"1d12h":                      now.Add(-36 * time.Hour),
		"0s":                         now,
		"18:00":                      time.Date(2024, 5, 1, 18, 0, 0, 0, loc), // last evening
		"08:15":                      time.Date(2024, 5, 2, 8, 15, 0, 0, loc), // this morning
		"09:30":                      now,
		"2024-05-01":                 time.Date(2024, 5, 1, 0, 0, 0, 0, loc),
		"2024-05-01 18:00":           time.Date(2024, 5, 1, 18, 0, 0, 0, loc),
		"2024-05-01T18:00:30":        time.Date(2024, 5, 1, 18, 0, 30, 0, loc),
		"2024-05-01T16:00:00Z":       time.Date(2024, 5, 1, 16, 0, 0, 0, time.UTC),
		"2024-05-01T16:00:00.5Z":     time.Date(2024, 5, 1, 16, 0, 0, 5e8, time.UTC),
		" 2024-05-01T18:00:00+02:00": time.Date(2024, 5, 1, 18, 0, 0, 0, loc),
	} {
		got, err := ParseSince(in, now, loc)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}

func TestParseSinceRefuses(t *testing.T) {
	now := time.Date(2024, 5, 2, 9, 30, 0, 0, time.UTC)
	for in, why := range map[string]string{
		"tomorrow":   "invalid --since 'tomorrow'",
		"-2h":        "cannot be negative",
		"2dx":        "invalid --since '2dx'",
		"99999d":     "too many days",
		"2024-05-03": "in the future",
		"25:00":      "invalid --since",
		"":           "invalid --since",
	} {
		if _, err := ParseSince(in, now, time.UTC); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("ParseSince(%q): %v, want an error saying %q", in, err, why)
		}
	}
}
