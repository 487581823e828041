package ralph

import (
	"strings"
	"testing"
	"time"
)

var paceNow = time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)

func TestParseStatusLineReadsClaudeCodesFigures(t *testing.T) {
	// As 2.1.332 writes it: the share in percent, the reset in seconds since the epoch.
	in := `{"session_id":"s","model":{"id":"claude"},"rate_limits":{"five_hour":{"used_percentage":62.5,"resets_at":` +
		"1795917600" + `},"seven_day":{"used_percentage":40,"resets_at":1796200000}}}`
	rl, ok := ParseStatusLine(strings.NewReader(in), paceNow)
	if !ok || rl.FiveHour == nil || rl.FiveHour.UsedPercent != 62.5 || rl.FiveHour.ResetsAt != "2026-11-29T02:00:00Z" ||
		rl.SevenDay == nil || rl.SevenDay.UsedPercent != 40 {
		t.Fatalf("got %+v %v", rl, ok)
	}
}

func TestParseStatusLineLeavesOutWhatIsOutOfRange(t *testing.T) {
	for name, in := range map[string]string{
		"no limits (an API key)": `{"model":{"id":"claude"}}`,
		"null":                   `{"rate_limits":null}`,
		"over 100":               `{"rate_limits":{"five_hour":{"used_percentage":250}}}`,
		"negative":               `{"rate_limits":{"five_hour":{"used_percentage":-1}}}`,
		"not JSON":               `rate_limits`,
		"too long":               `{"x":"` + strings.Repeat("a", StatusLineInputMax) + `","rate_limits":{"five_hour":{"used_percentage":5}}}`,
	} {
		if rl, ok := ParseStatusLine(strings.NewReader(in), paceNow); ok {
			t.Errorf("%s: read %+v", name, rl)
		}
	}
	// A reset out of reach is taken as not told; the share stays.
	rl, ok := ParseStatusLine(strings.NewReader(`{"rate_limits":{"five_hour":{"used_percentage":5,"resets_at":99999999999}}}`), paceNow)
	if !ok || rl.FiveHour.ResetsAt != "" {
		t.Errorf("a reset centuries ahead: %+v %v", rl.FiveHour, ok)
	}
	rl, ok = ParseStatusLine(strings.NewReader(`{"rate_limits":{"five_hour":{"used_percentage":5,"resets_at":"2026-11-29T03:00:00Z"}}}`), paceNow)
	if !ok || rl.FiveHour.ResetsAt != "2026-11-29T03:00:00Z" {
		t.Errorf("an RFC 3339 reset: %+v %v", rl.FiveHour, ok)
	}
}

func TestParsePaceRecordTakesTheBoxFileAsUntrusted(t *testing.T) {
	good := `{"five_hour":{"used_percent":62,"resets_at":"2026-11-29T03:00:00Z"},"seen":"2026-11-29T01:00:00Z","token":"t"}`
	if rec, err := ParsePaceRecord([]byte(good)); err != nil || rec.Token != "t" || rec.FiveHour.UsedPercent != 62 {
		t.Fatalf("good record: %+v %v", rec, err)
	}
	for name, bad := range map[string]string{
		"unknown field":  `{"five_hour":{"used_percent":62},"seen":"2026-11-29T01:00:00Z","run":"rm -rf /"}`,
		"share over 100": `{"five_hour":{"used_percent":101},"seen":"2026-11-29T01:00:00Z"}`,
		"reset too far":  `{"five_hour":{"used_percent":1,"resets_at":"2030-01-01T00:00:00Z"},"seen":"2026-11-29T01:00:00Z"}`,
		"no time seen":   `{"five_hour":{"used_percent":1}}`,
		"no figures":     `{"seen":"2026-11-29T01:00:00Z"}`,
		"too long":       `{"seen":"2026-11-29T01:00:00Z","token":"` + strings.Repeat("x", paceFileMax) + `"}`,
	} {
		if rec, err := ParsePaceRecord([]byte(bad)); err == nil {
			t.Errorf("%s: read %+v", name, rec)
		}
	}
}

func TestHeadroomReachedAtOrAboveItsShare(t *testing.T) {
	reset := paceNow.Add(2 * time.Hour)
	rl := func(used float64, reset string) *RateLimits {
		return &RateLimits{FiveHour: &RateWindow{UsedPercent: used, ResetsAt: reset}}
	}
	at := reset.Format(time.RFC3339)
	f, ok := HeadroomReached(rl(90, at), 10, paceNow)
	if !ok || !f.Reset.Equal(reset) || f.Text != "5-hour limit 90% used, within the headroom of 10% (--limit-headroom)" {
		t.Fatalf("at the headroom: %+v %v", f, ok)
	}
	for name, c := range map[string]struct {
		rl       *RateLimits
		headroom int
	}{
		"below":            {rl(89.9, at), 10},
		"no headroom":      {rl(99, at), 0},
		"no figures":       {nil, 10},
		"reset unknown":    {rl(99, ""), 10},
		"reset passed":     {rl(99, paceNow.Add(-time.Minute).Format(time.RFC3339)), 10},
		"seven days alone": {&RateLimits{SevenDay: &RateWindow{UsedPercent: 99, ResetsAt: at}}, 10},
	} {
		if f, ok := HeadroomReached(c.rl, c.headroom, paceNow); ok {
			t.Errorf("%s: parked on %+v", name, f)
		}
	}
}

func TestHeadroomParksAsALimitDoes(t *testing.T) {
	reset := paceNow.Add(2 * time.Hour)
	f, _ := HeadroomReached(&RateLimits{FiveHour: &RateWindow{UsedPercent: 95, ResetsAt: reset.Format(time.RFC3339)}}, 10, paceNow)
	d := LimitHit(3, f, Limits{LimitMargin: time.Minute})
	if d.Status != StatusWaiting || !d.WaitUntil.Equal(reset.Add(time.Minute)) || !strings.Contains(d.WaitFor, "headroom") {
		t.Fatalf("decision %+v", d)
	}
}

func TestRateLimitsWords(t *testing.T) {
	loc := time.FixedZone("X", 0)
	rl := RateLimits{FiveHour: &RateWindow{UsedPercent: 62, ResetsAt: "2026-11-29T03:00:00Z"}, SevenDay: &RateWindow{UsedPercent: 40.25}}
	if got, want := rl.Words(paceNow, loc), "5-hour limit: 62% used, resets 03:00; 7-day: 40.3%"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := rl.Words(paceNow.Add(3*time.Hour), loc), "5-hour limit: 62% used before its reset at 03:00; 7-day: 40.3%"; got != want {
		t.Errorf("after the reset: got %q, want %q", got, want)
	}
	if got := (RateLimits{}).Words(paceNow, loc); got != "" {
		t.Errorf("no figures: %q", got)
	}
}
