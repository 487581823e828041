package heartbeat

import (
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"
)

func TestParseDuration(t *testing.T) {
	good := map[string]time.Duration{"4h": 4 * time.Hour, "30m": 30 * time.Minute, "90s": 90 * time.Second,
		"1d": 24 * time.Hour, "1h30m": 90 * time.Minute, "3600": time.Hour, " 2H ": 2 * time.Hour}
	for in, want := range good {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-5", "4x", "h", "1h30", "soon", "0m"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) succeeded", bad)
		}
	}
}

// The heartbeat commands show intervals with words.Terse; what they show reads back the same.
func TestParseDurationReadsTerse(t *testing.T) {
	for _, d := range []time.Duration{time.Second, 90 * time.Second, 30 * time.Minute, 4 * time.Hour,
		90 * time.Minute, 48 * time.Hour, 25*time.Hour + 5*time.Second} {
		if got, err := ParseDuration(words.Terse(d)); err != nil || got != d {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", words.Terse(d), got, err, d)
		}
	}
}

var t0 = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

func beat(interval, expire time.Duration) *State {
	return New("w", interval, expire, "continue", t0)
}

// One case per transition: facts in, the step out.
func TestDecide(t *testing.T) {
	paused := beat(time.Hour, 0)
	paused.Status = Paused
	sentOnce := beat(time.Hour, 0)
	sentOnce.Sent(t0.Add(time.Hour))
	cases := []struct {
		name    string
		h       *State
		running bool
		now     time.Time
		want    Step
	}{
		{"not due yet", beat(time.Hour, 0), true, t0.Add(time.Minute), Step{Status: Active, Wake: t0.Add(time.Hour)}},
		{"due", beat(time.Hour, 0), true, t0.Add(time.Hour), Step{Send: true, Status: Active, Wake: t0.Add(2 * time.Hour)}},
		{"missed many: one beat, the next an interval on", beat(time.Hour, 0), true, t0.Add(5*time.Hour + time.Minute),
			Step{Send: true, Status: Active, Wake: t0.Add(6*time.Hour + time.Minute)}},
		{"due from the last beat", sentOnce, true, t0.Add(90 * time.Minute), Step{Status: Active, Wake: t0.Add(2 * time.Hour)}},
		{"worker gone", beat(time.Hour, 0), false, t0.Add(time.Hour), Step{Status: Stopped}},
		{"expired", beat(time.Hour, 3*time.Hour), true, t0.Add(3 * time.Hour), Step{Status: Expired}},
		{"wakes at expiry when that comes first", beat(time.Hour, 90*time.Minute), true, t0.Add(time.Hour),
			Step{Send: true, Status: Active, Wake: t0.Add(90 * time.Minute)}},
		{"paused does nothing", paused, true, t0.Add(time.Hour), Step{Status: Paused}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Decide(c.h, c.running, c.now); got != c.want {
				t.Errorf("Decide = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestPythonHeartbeatFileIsRead(t *testing.T) {
	dir := t.TempDir()
	s := Store{Dir: dir}
	py := `{"worker_name": "builder", "interval_seconds": 14400, "expire_at": null, "message": "continue",
	  "created_at": "2026-02-04T02:00:00+00:00", "last_beat_at": "2026-02-04T06:00:00", "beat_count": 1,
	  "status": "active", "monitor_pid": 4242}`
	if _, err := s.Update("builder", func(*State) (*State, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(s.path("builder"), py); err != nil {
		t.Fatal(err)
	}
	h, err := s.Load("builder")
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 2, 4, 10, 0, 0, 0, time.Local)
	if !h.NextBeat().Equal(want) || !h.Expiry().IsZero() || h.BeatCount != 1 {
		t.Errorf("read %+v, next %v", h, h.NextBeat())
	}
	if list := s.List(nil); len(list) != 1 || list[0].WorkerName != "builder" {
		t.Errorf("List = %v", list)
	}
}
