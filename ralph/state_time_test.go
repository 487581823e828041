package ralph

import (
	"testing"
	"time"
)

func TestStoredTimesCarryTheirZone(t *testing.T) {
	at := time.Date(2026, 11, 22, 6, 29, 17, 925827000, time.FixedZone("CET", 3600))
	stored := at.Format(TimeFormat)
	if stored != "2026-11-22T06:29:17.925827+01:00" {
		t.Fatalf("stored as %q", stored)
	}
	if got := ParseTime(stored); !got.Equal(at) {
		t.Errorf("read back as %v, want %v", got, at)
	}
}

func TestTimesWithoutZoneAreLocal(t *testing.T) {
	for _, stored := range []string{"2026-11-22T06:29:17.925827", "2026-11-22T06:29:17"} {
		got := ParseTime(stored)
		want := time.Date(2026, 11, 22, 6, 29, 17, 0, time.Local)
		if got.IsZero() || got.Location() != time.Local || got.Truncate(time.Second) != want {
			t.Errorf("ParseTime(%q) = %v, want %v local", stored, got, want)
		}
	}
	if got := ParseTime("yesterday"); !got.IsZero() {
		t.Errorf("malformed time read as %v", got)
	}
}

func TestFormatTimeShowsLocalTime(t *testing.T) {
	at := time.Date(2026, 11, 22, 6, 29, 17, 0, time.UTC)
	if got, want := FormatTime(at.Format(TimeFormat)), at.Local().Format("2006-01-02 15:04:05"); got != want {
		t.Errorf("FormatTime = %q, want %q", got, want)
	}
	if got := FormatTime("garbage"); got != "garbage" {
		t.Errorf("a malformed time is shown as stored, got %q", got)
	}
}
