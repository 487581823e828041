package words

import (
	"fmt"
	"strings"
	"time"
)

// Duration is a duration to the second, largest unit first, with spaces: "42s", "3m 42s",
// "1h 2m 3s", "26h 0m 0s". Rounded to the second; below zero is "0s".
func Duration(d time.Duration) string {
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

// MinutesSeconds is Duration with the minutes always shown: "0m 5s", "15m 32s", "1h 2m 3s".
func MinutesSeconds(d time.Duration) string {
	if d.Round(time.Second) < time.Minute {
		return "0m " + Duration(d)
	}
	return Duration(d)
}

// HoursMinutes is a duration to the minute, cut down rather than rounded: "0m", "5m",
// "1h 0m", "1h 23m", "26h 5m". Below zero is "0m".
func HoursMinutes(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	h, m := int(d.Hours()), int(d.Minutes())%60
	if h > 0 {
		return fmt.Sprintf("%dh %dm", h, m)
	}
	return fmt.Sprintf("%dm", m)
}

// Short is a duration the way people say it, in its largest unit and the next one when that
// is not zero, cut down rather than rounded: "42s", "5m", "1h", "1h 3m", "2d", "2d 4h".
// Below zero is "0s".
func Short(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int(d.Seconds())
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm", s/60)
	case s < 86400:
		return twoUnits(s/3600, "h", (s%3600)/60, "m")
	}
	return twoUnits(s/86400, "d", (s%86400)/3600, "h")
}

// twoUnits is "2d 4h", or "2d" when the smaller unit is zero.
func twoUnits(big int, bigUnit string, small int, smallUnit string) string {
	if small > 0 {
		return fmt.Sprintf("%d%s %d%s", big, bigUnit, small, smallUnit)
	}
	return fmt.Sprintf("%d%s", big, bigUnit)
}

// Ago says how long before now t was, in the Short style: "42s ago", "1h 3m ago"; a t after
// now is "0s ago", and the zero time (not known) is "-".
func Ago(t, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return Short(now.Sub(t)) + " ago"
}

// Terse is a duration in every unit that is not zero, from days down, without spaces: "45s",
// "1m30s", "30m", "4h", "1h30m", "2d", "1d1h5s". Rounded to the second; zero or below is
// "0s".
func Terse(d time.Duration) string {
	d = d.Round(time.Second)
	if d <= 0 {
		return "0s"
	}
	var b strings.Builder
	for _, u := range []struct {
		name string
		size time.Duration
	}{{"d", 24 * time.Hour}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second}} {
		if n := d / u.size; n > 0 {
			fmt.Fprintf(&b, "%d%s", n, u.name)
			d -= n * u.size
		}
	}
	return b.String()
}

// Compact is Go's own form of a duration rounded to the second: "0s", "42s", "5m42s",
// "1h0m5s". Scripts read it back with time.ParseDuration.
func Compact(d time.Duration) string {
	return d.Round(time.Second).String()
}
