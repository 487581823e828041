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

func TestRunningTimeLeavesOutPauses(t *testing.T) {
	dir := Dir{Path: t.TempDir()}
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	if err := dir.Create(&State{Status: StatusRunning, Started: start.Format(TimeFormat)}); err != nil {
		t.Fatal(err)
	}
	apply := func(at time.Duration, decide func(*State) (Decision, error)) *State {
		t.Helper()
		st, _, err := dir.Transition(start.Add(at), decide)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	pause := func(s *State) (Decision, error) { return Pause(s, "paused by user", "paused") }
	resume := func(s *State) (Decision, error) { d, _, err := Resume(s, ResumeRequest{}); return d, err }
	apply(10*time.Minute, pause)
	st := apply(40*time.Minute, resume) // 30 minutes paused
	if got := st.RunningTime(start.Add(time.Hour)); got != 30*time.Minute {
		t.Errorf("after one pause: running time %v, want 30m", got)
	}
	st = apply(50*time.Minute, pause)
	if got := st.RunningTime(start.Add(time.Hour)); got != 20*time.Minute {
		t.Errorf("while paused again: running time %v, want 20m (frozen at the pause)", got)
	}
	st = apply(70*time.Minute, func(s *State) (Decision, error) { return Killed(s), nil })
	if got := st.RunningTime(start.Add(5 * time.Hour)); got != 20*time.Minute {
		t.Errorf("after a kill while paused: running time %v, want 20m", got)
	}
}
