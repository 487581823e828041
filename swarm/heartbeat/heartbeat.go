package heartbeat

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/state"
)

// Statuses a heartbeat is in.
const (
	Active  = "active"
	Paused  = "paused"
	Expired = "expired" // past its expiry time
	Stopped = "stopped" // stopped by the user, or its worker is gone
)

// DefaultMessage is what a beat sends unless told otherwise.
const DefaultMessage = "continue"

// State is one worker's heartbeat, $SWARM_DIR/heartbeats/<worker>.json (the field set the
// Python swarm writes).
type State struct {
	WorkerName      string  `json:"worker_name"`
	IntervalSeconds int     `json:"interval_seconds"`
	ExpireAt        *string `json:"expire_at"`
	Message         string  `json:"message"`
	CreatedAt       string  `json:"created_at"`
	LastBeatAt      *string `json:"last_beat_at"`
	BeatCount       int     `json:"beat_count"`
	Status          string  `json:"status"`
}

// New is a heartbeat that starts now.
func New(worker string, interval time.Duration, expire time.Duration, message string, now time.Time) *State {
	h := &State{WorkerName: worker, IntervalSeconds: int(interval / time.Second), Message: message,
		CreatedAt: now.Format(time.RFC3339Nano), Status: Active}
	if expire > 0 {
		at := now.Add(expire).Format(time.RFC3339Nano)
		h.ExpireAt = &at
	}
	return h
}

// Interval is the time between beats.
func (h *State) Interval() time.Duration { return time.Duration(h.IntervalSeconds) * time.Second }

// Expiry is when the heartbeat stops by itself; zero for never.
func (h *State) Expiry() time.Time { return readTime(h.ExpireAt) }

// LastBeat is when the last beat was sent; zero before the first.
func (h *State) LastBeat() time.Time { return readTime(h.LastBeatAt) }

// NextBeat is when the next beat is due: an interval after the last one, or after the start.
func (h *State) NextBeat() time.Time {
	from := h.LastBeat()
	if from.IsZero() {
		from, _ = state.ParseTime(h.CreatedAt)
	}
	return from.Add(h.Interval())
}

func readTime(s *string) time.Time {
	if s == nil {
		return time.Time{}
	}
	t, _ := state.ParseTime(*s)
	return t
}

// ErrInvalidDuration is returned for a duration that cannot be read or is not positive.
var ErrInvalidDuration = errors.New("invalid duration")

// ParseDuration reads "4h", "30m", "90s", "1d", combinations such as "1h30m", or a bare
// number of seconds ("3600"). It reads back what words.Terse writes, the form the heartbeat
// commands show intervals in; it stays here, beside the flags it reads, because its rules
// (bare seconds, nothing below a second) are the command's, not how a duration is said.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if n, err := strconv.Atoi(s); err == nil {
		if n <= 0 {
			return 0, ErrInvalidDuration
		}
		return time.Duration(n) * time.Second, nil
	}
	units := map[byte]time.Duration{'d': 24 * time.Hour, 'h': time.Hour, 'm': time.Minute, 's': time.Second}
	var total time.Duration
	num := ""
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			num += string(c)
			continue
		}
		unit, ok := units[c]
		if !ok || num == "" {
			return 0, ErrInvalidDuration
		}
		n, _ := strconv.Atoi(num)
		total += time.Duration(n) * unit
		num = ""
	}
	if num != "" || total <= 0 {
		return 0, ErrInvalidDuration
	}
	return total, nil
}
