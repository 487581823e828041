package ralph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Pace: how much of its plan's usage limits the agent's account has used. Claude Code tells a
// status line command (the statusLine of its settings) the share of the 5-hour and 7-day
// limits used and when each resets, as its API's answers told it. swarm's settings for the
// iteration make that command its recorder, which keeps the figures in the loop's box; the
// loop reads them at the end of every iteration and before starting the next, shows them,
// and with a headroom (--limit-headroom) parks before the 5-hour limit is reached, as it does
// at a limit's banner, so that a night's work does not stop in the middle of a task.

// RateWindow is one limit's use: the share used, in percent (0 to 100), and when it resets
// ("" when not told).
type RateWindow struct {
	UsedPercent float64 `json:"used_percent"`
	ResetsAt    string  `json:"resets_at,omitempty"` // RFC 3339
}

// RateLimits is the account's use of its limits as last told, when it was told (Seen).
type RateLimits struct {
	FiveHour *RateWindow `json:"five_hour,omitempty"`
	SevenDay *RateWindow `json:"seven_day,omitempty"`
	Seen     string      `json:"seen"`
}

// PaceRecord is the box's file of the figures: the recorder writes it with the iteration's
// token, which ties it to the agent the loop started (see signals_tie.go).
type PaceRecord struct {
	RateLimits
	Token string `json:"token,omitempty"`
}

// PaceFile is the box's file the status line command writes the figures to.
func (d Dir) PaceFile() string { return filepath.Join(d.AgentBox(), "rate-limits.json") }

// StatusLineInputMax bounds what is read of a status line's input: a few kilobytes of
// session facts; more is no input Claude Code sends.
const StatusLineInputMax = 256 << 10

// resetHorizon bounds how far ahead a reset may lie: the longest window is seven days.
const resetHorizon = 8 * 24 * time.Hour

// ParseStatusLine reads the rate limits from a status line's input (Claude Code's JSON on
// the command's stdin), read at most StatusLineInputMax bytes of; ok is false when it tells
// none (an API key's session: no plan, no limits) or is not that JSON. A figure out of range
// is left out, a reset out of reach taken as not told.
func ParseStatusLine(r io.Reader, now time.Time) (RateLimits, bool) {
	data, err := io.ReadAll(io.LimitReader(r, StatusLineInputMax+1))
	if err != nil || len(data) > StatusLineInputMax {
		return RateLimits{}, false
	}
	var in struct {
		RateLimits *struct {
			FiveHour *rawWindow `json:"five_hour"`
			SevenDay *rawWindow `json:"seven_day"`
		} `json:"rate_limits"`
	}
	if json.Unmarshal(data, &in) != nil || in.RateLimits == nil {
		return RateLimits{}, false
	}
	rl := RateLimits{FiveHour: in.RateLimits.FiveHour.window(now), SevenDay: in.RateLimits.SevenDay.window(now),
		Seen: now.UTC().Format(TimeFormat)}
	return rl, rl.FiveHour != nil || rl.SevenDay != nil
}

// rawWindow is one limit as Claude Code writes it: resets_at in seconds since the epoch
// (2.1.332), or an RFC 3339 time.
type rawWindow struct {
	UsedPercentage *float64        `json:"used_percentage"`
	ResetsAt       json.RawMessage `json:"resets_at"`
}

func (w *rawWindow) window(now time.Time) *RateWindow {
	if w == nil || w.UsedPercentage == nil || !validPercent(*w.UsedPercentage) {
		return nil
	}
	out := &RateWindow{UsedPercent: *w.UsedPercentage}
	var reset time.Time
	var secs float64
	var text string
	switch {
	case json.Unmarshal(w.ResetsAt, &secs) == nil && !math.IsInf(secs, 0) && secs > 0 && secs < 1e11:
		reset = time.Unix(int64(secs), 0)
	case json.Unmarshal(w.ResetsAt, &text) == nil:
		reset, _ = time.Parse(time.RFC3339Nano, text)
	}
	if resetInReach(reset, now) {
		out.ResetsAt = reset.UTC().Format(time.RFC3339)
	}
	return out
}

func validPercent(p float64) bool { return !math.IsNaN(p) && p >= 0 && p <= 100 }

// resetInReach reports whether a reset is one a window can have, seen at now: not long past,
// not further ahead than the longest window.
func resetInReach(reset, now time.Time) bool {
	return !reset.IsZero() && reset.After(now.Add(-resetHorizon)) && reset.Before(now.Add(resetHorizon))
}

// paceFileMax bounds the box's file as read back: the agent may write anything there.
const paceFileMax = 4 << 10

// ParsePaceRecord reads the box's file of the figures, taken as untrusted: bounded, one JSON
// object of a record's fields, every figure in range.
func ParsePaceRecord(data []byte) (PaceRecord, error) {
	var rec PaceRecord
	if len(data) > paceFileMax {
		return rec, fmt.Errorf("%d bytes long; at most %d", len(data), paceFileMax)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return PaceRecord{}, err
	}
	seen := ParseTime(rec.Seen)
	if seen.IsZero() {
		return PaceRecord{}, errors.New("no time seen")
	}
	for _, w := range []*RateWindow{rec.FiveHour, rec.SevenDay} {
		if w == nil {
			continue
		}
		if !validPercent(w.UsedPercent) {
			return PaceRecord{}, fmt.Errorf("a share used of %v%%", w.UsedPercent)
		}
		if reset, err := time.Parse(time.RFC3339, w.ResetsAt); w.ResetsAt != "" && (err != nil || !resetInReach(reset, seen)) {
			return PaceRecord{}, fmt.Errorf("a reset of %q", printableShort(w.ResetsAt))
		}
	}
	if rec.FiveHour == nil && rec.SevenDay == nil {
		return PaceRecord{}, errors.New("no figures")
	}
	return rec, nil
}

// Headroom bounds --limit-headroom, in percent of the 5-hour limit.
const (
	MinHeadroom = 1
	MaxHeadroom = 99
)

// HeadroomReached is the usage limit a loop with a headroom (in percent; 0: none) parks on
// before the next iteration: the 5-hour limit used at 100-headroom or more, with its reset
// known and ahead. ok is false otherwise, and for figures not told.
func HeadroomReached(rl *RateLimits, headroom int, now time.Time) (LimitFacts, bool) {
	if headroom <= 0 || rl == nil || rl.FiveHour == nil {
		return LimitFacts{}, false
	}
	w := rl.FiveHour
	reset, err := time.Parse(time.RFC3339, w.ResetsAt)
	if err != nil || !reset.After(now) || w.UsedPercent < float64(100-headroom) {
		return LimitFacts{}, false
	}
	text := fmt.Sprintf("5-hour limit %s used, within the headroom of %d%% (--limit-headroom)", percent(w.UsedPercent), headroom)
	return LimitFacts{Text: text, Reset: reset, Now: now}, true
}

// Words are the figures as every view says them, times in loc: "5-hour limit: 62% used,
// resets 03:00; 7-day: 40%". A reset that has passed is said so: the figure was its window's.
func (rl RateLimits) Words(now time.Time, loc *time.Location) string {
	var parts []string
	if w := rl.FiveHour; w != nil {
		s := "5-hour limit: " + percent(w.UsedPercent) + " used"
		if reset, err := time.Parse(time.RFC3339, w.ResetsAt); err == nil {
			if reset.After(now) {
				s += ", resets " + clockWords(reset, now, loc)
			} else {
				s += " before its reset at " + clockWords(reset, now, loc)
			}
		}
		parts = append(parts, s)
	}
	if w := rl.SevenDay; w != nil {
		parts = append(parts, "7-day: "+percent(w.UsedPercent))
	}
	return strings.Join(parts, "; ")
}

// percent is a share in percent as people read it: 62%, 62.5%.
func percent(p float64) string {
	return strconv.FormatFloat(math.Round(p*10)/10, 'f', -1, 64) + "%"
}

// clockWords is a time of day, with its day when it is not within the next day: 03:00, Mon 14:30.
func clockWords(t, now time.Time, loc *time.Location) string {
	t = t.In(loc)
	if d := t.Sub(now); d > -12*time.Hour && d < 20*time.Hour {
		return t.Format("15:04")
	}
	return t.Format("Mon 15:04")
}

// statusLineSetting is Claude Code's statusLine for the recorder rec (its command line made
// by command): the recorder keeps the figures in pace and then runs the user's own status
// line, if any, with the same input, printing what it prints: a user keeps the status line
// they chose, and swarm still learns the pace (a settings file given with --settings would
// otherwise hide theirs).
func statusLineSetting(rec []string, pace string, command func([]string) string) map[string]any {
	argv := append(append([]string{}, rec...), "--status-line", pace)
	return map[string]any{"type": "command", "command": command(argv), "padding": 0}
}

// ReadPace is the figures the box's file holds, when they are tied to the agent whose token's
// digest is tokenSum (the loop's current or last iteration's) and newer than those known;
// ok is false otherwise (no file, a bad one, another agent's, old news).
func (d Dir) ReadPace(tokenSum string, known *RateLimits) (RateLimits, bool) {
	data, err := ReadBoxFile(d.PaceFile())
	if err != nil {
		return RateLimits{}, false
	}
	rec, err := ParsePaceRecord(data)
	if err != nil || tokenSum == "" || Untied(AgentEvent{Token: rec.Token}, "", tokenSum) != "" {
		return RateLimits{}, false
	}
	if known != nil && !ParseTime(rec.Seen).After(ParseTime(known.Seen)) {
		return RateLimits{}, false
	}
	return rec.RateLimits, true
}
