package words

import (
	"testing"
	"time"
)

const (
	sec  = time.Second
	min  = time.Minute
	hour = time.Hour
	day  = 24 * time.Hour
)

type durationCase struct {
	d    time.Duration
	want string
}

func checkDurations(t *testing.T, name string, f func(time.Duration) string, cases []durationCase) {
	t.Helper()
	for _, c := range cases {
		if got := f(c.d); got != c.want {
			t.Errorf("%s(%v) = %q, want %q", name, c.d, got, c.want)
		}
	}
}

func TestDuration(t *testing.T) {
	checkDurations(t, "Duration", Duration, []durationCase{
		{-sec, "0s"}, {0, "0s"}, {400 * time.Millisecond, "0s"}, {500 * time.Millisecond, "1s"},
		{42 * sec, "42s"}, {59*sec + 600*time.Millisecond, "1m 0s"}, {3*min + 42*sec, "3m 42s"},
		{5 * min, "5m 0s"}, {hour + 2*min + 3*sec, "1h 2m 3s"}, {hour, "1h 0m 0s"}, {26 * hour, "26h 0m 0s"},
	})
}

func TestMinutesSeconds(t *testing.T) {
	checkDurations(t, "MinutesSeconds", MinutesSeconds, []durationCase{
		{-sec, "0m 0s"}, {0, "0m 0s"}, {5 * sec, "0m 5s"}, {59*sec + 400*time.Millisecond, "0m 59s"},
		{59*sec + 600*time.Millisecond, "1m 0s"}, {15*min + 32*sec, "15m 32s"}, {hour + 2*min + 3*sec, "1h 2m 3s"},
	})
}

func TestHoursMinutes(t *testing.T) {
	checkDurations(t, "HoursMinutes", HoursMinutes, []durationCase{
		{-hour, "0m"}, {0, "0m"}, {59 * sec, "0m"}, {5*min + 59*sec, "5m"}, {hour, "1h 0m"},
		{hour + 23*min, "1h 23m"}, {26*hour + 5*min, "26h 5m"},
	})
}

func TestShort(t *testing.T) {
	checkDurations(t, "Short", Short, []durationCase{
		{-sec, "0s"}, {0, "0s"}, {999 * time.Millisecond, "0s"}, {42 * sec, "42s"}, {59 * sec, "59s"},
		{min, "1m"}, {5*min + 59*sec, "5m"}, {hour, "1h"}, {63 * min, "1h 3m"}, {hour + 59*sec, "1h"},
		{23*hour + 59*min, "23h 59m"}, {day, "1d"}, {48 * hour, "2d"}, {52 * hour, "2d 4h"},
		{48*hour + 59*min, "2d"},
	})
}

func TestAgo(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cases := []durationCase{{-sec, "0s ago"}, {42 * sec, "42s ago"}, {5 * min, "5m ago"},
		{hour, "1h ago"}, {63 * min, "1h 3m ago"}, {48 * hour, "2d ago"}, {52 * hour, "2d 4h ago"}}
	checkDurations(t, "Ago", func(d time.Duration) string { return Ago(now.Add(-d), now) }, cases)
	if got := Ago(time.Time{}, now); got != "-" {
		t.Errorf("Ago(zero time) = %q, want %q", got, "-")
	}
}

func TestTerse(t *testing.T) {
	checkDurations(t, "Terse", Terse, []durationCase{
		{-sec, "0s"}, {0, "0s"}, {400 * time.Millisecond, "0s"}, {45 * sec, "45s"}, {90 * sec, "1m30s"},
		{30 * min, "30m"}, {4 * hour, "4h"}, {90 * min, "1h30m"}, {2 * day, "2d"}, {day + hour + 5*sec, "1d1h5s"},
	})
}

func TestCompact(t *testing.T) {
	checkDurations(t, "Compact", Compact, []durationCase{
		{0, "0s"}, {400 * time.Millisecond, "0s"}, {42*sec + 600*time.Millisecond, "43s"},
		{5*min + 42*sec, "5m42s"}, {5 * min, "5m0s"}, {hour + 5*sec, "1h0m5s"}, {26 * hour, "26h0m0s"},
	})
}

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int
		word string
		want string
	}{{0, "spec", "0 specs"}, {1, "spec", "1 spec"}, {2, "spec", "2 specs"}, {1, "pending spec", "1 pending spec"},
		{3, "pending spec", "3 pending specs"}, {-1, "check", "-1 checks"}} {
		if got := Plural(c.n, c.word); got != c.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", c.n, c.word, got, c.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0"}, {950, "950"}, {999, "999"}, {1_000, "1.0K"}, {34_500, "34.5K"}, {999_949, "999.9K"}, {999_950, "1.0M"},
		{1_000_000, "1.0M"}, {1_234_567, "1.2M"}, {2_500_000_000, "2500.0M"}} {
		if got := Count(c.n); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
