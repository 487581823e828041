package swarm

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/swarm/land"
)

var landT0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func landEv(step string) land.Event {
	return land.Event{Step: step, Worker: "w1", Branch: "feat", Target: "main", Time: landT0, Command: "make test",
		Commit: "0123456789abcdef", Elapsed: 65 * time.Second, Outcome: "tests failed (exit 2)"}
}

func TestStepText(t *testing.T) {
	for step, want := range map[string]string{
		land.StepMerging: "w1: merging feat onto main",
		land.StepTesting: "w1: testing: make test (1m 5s)",
		land.StepTested:  "w1: tests failed (exit 2) after 1m 5s",
		land.StepMoving:  "w1: moving main to 0123456",
		land.StepPushing: "w1: pushing 0123456 to main",
	} {
		if got := stepText(landEv(step), 65*time.Second); got != want {
			t.Errorf("%s: %q, want %q", step, got, want)
		}
	}
	passed := landEv(land.StepTested)
	passed.Outcome = "passed"
	if got := stepText(passed, 0); got != "w1: tests passed in 1m 5s" {
		t.Errorf("passed: %q", got)
	}
	// What a project file gives is shown without its escapes.
	ev := landEv(land.StepTesting)
	ev.Command = "make\x1b[2J test\n-k"
	if got := stepText(ev, 0); got != "w1: testing: make test -k" {
		t.Errorf("escaped: %q", got)
	}
}

// On a terminal the step under way is one line rewritten in place, its clock moving; a result
// takes it away first.
func TestLiveLineIsRewrittenInPlace(t *testing.T) {
	var out bytes.Buffer
	now := landT0
	s := &landShow{out: &out, errOut: &out, live: true, width: 40, now: func() time.Time { return now }}
	s.event(landEv(land.StepTesting))
	now = now.Add(72 * time.Second)
	s.draw()
	s.result(landResult{Record: &land.Record{Worker: "w1", Branch: "feat", Target: "main", State: land.Landed, Commit: "0123456789"}})
	want := "\r\x1b[Kw1: testing: make test" +
		"\r\x1b[Kw1: testing: make test (1m 12s)" +
		"\r\x1b[Klanded w1 (feat) into main at 0123456; no test command: the merge alone was checked\n"
	if got := out.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// A line too wide for the terminal is cut, never wrapped (a wrapped line cannot be rewritten).
	out.Reset()
	s.width = 20
	s.event(landEv(land.StepMerging))
	if got := out.String(); got != "\r\x1b[Kw1: merging feat o…" {
		t.Errorf("cut: %q", got)
	}
}

func TestPlainLinesOffATerminal(t *testing.T) {
	var out bytes.Buffer
	s := &landShow{out: &out, errOut: &out, now: time.Now}
	s.event(landEv(land.StepMerging))
	s.event(landEv(land.StepTesting))
	if got := out.String(); got != "w1: merging feat onto main\nw1: testing: make test\n" {
		t.Errorf("%q", got)
	}
}

// --format json: one object per line per event; a worker's result carries its record.
func TestJSONEventsOnePerLine(t *testing.T) {
	var out, errOut bytes.Buffer
	s := &landShow{out: &out, errOut: &errOut, json: true, now: func() time.Time { return landT0 }}
	s.event(landEv(land.StepTested))
	s.result(landResult{Record: &land.Record{Worker: "w1", State: land.Queued, Reason: "why"}, Error: "landing w1: boom"})
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%q", out.String())
	}
	var tested, result map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &tested); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(lines[1]), &result); err != nil {
		t.Fatal(err)
	}
	if tested["event"] != "tested" || tested["elapsed_seconds"] != 65.0 || tested["outcome"] != "tests failed (exit 2)" || tested["time"] != "2026-03-01T09:00:00Z" {
		t.Errorf("tested: %v", tested)
	}
	if result["event"] != "result" || result["worker"] != "w1" || result["state"] != "queued" || result["reason"] != "why" || result["error"] != "landing w1: boom" {
		t.Errorf("result: %v", result)
	}
	if errOut.String() != "swarm: error: landing w1: boom\n" {
		t.Errorf("stderr %q", errOut.String())
	}
}
