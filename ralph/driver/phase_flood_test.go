package driver

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
)

func TestFloodMeter(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		reads []time.Duration // when each read of 64 kB came, after t0
		flood bool
	}{
		{"a burst within the window", []time.Duration{0, 100, 200, 300, 400, 500, 600, 700, 800}, true},
		{"exactly the limit is no flood", []time.Duration{0, 100, 200, 300, 400, 500, 600, 700}, false},
		{"the same bytes spread over two windows", []time.Duration{0, 200, 400, 600, 1000, 1200, 1400, 1600, 1800}, false},
		{"a steady 512 kB a second for long", []time.Duration{0, 125, 250, 375, 500, 625, 750, 875, 1000, 1125, 1250, 1375, 1500, 1625, 1750, 1875}, false},
	}
	for _, c := range cases {
		var m floodMeter
		flood := false
		for _, ms := range c.reads {
			flood = m.add(t0.Add(ms*time.Millisecond), 64<<10) || flood
		}
		if flood != c.flood {
			t.Errorf("%s: flood %v, want %v", c.name, flood, c.flood)
		}
	}
}

func TestFloodPause(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	var f floodPause
	if f.holding(t0) || f.resumeDue(t0) {
		t.Fatal("a pause before any flood")
	}
	// The first flood: a pause of floodPauseMin, logged as new.
	if d, fresh := f.begin(t0); d != floodPauseMin || !fresh {
		t.Fatalf("first flood: %v new=%v", d, fresh)
	}
	if !f.holding(t0.Add(floodPauseMin-time.Millisecond)) || f.resumeDue(t0.Add(floodPauseMin-time.Millisecond)) {
		t.Fatal("the pause ended early")
	}
	resumed := t0.Add(floodPauseMin)
	if !f.resumeDue(resumed) || f.resumeDue(resumed) {
		t.Fatal("the end of the pause is not told once")
	}
	// The same flood again at once: twice the pause, not logged again; up to the ceiling.
	want := floodPauseMin
	now := resumed
	for range 6 {
		now = now.Add(time.Second)
		want = min(2*want, floodPauseMax)
		if d, fresh := f.begin(now); d != want || fresh {
			t.Fatalf("flood again at %v: %v new=%v, want %v", now.Sub(t0), d, fresh, want)
		}
		now = now.Add(want)
		if !f.resumeDue(now) {
			t.Fatal("no end of pause")
		}
	}
	// A flood after a calm spell is a new one.
	if d, fresh := f.begin(now.Add(floodCalm)); d != floodPauseMin || !fresh {
		t.Fatalf("a flood after calm: %v new=%v", d, fresh)
	}
}

// A flood is told to the loop as soon as it is seen, and what comes after is no longer
// searched for the marker (that search is what cannot keep up).
func TestFeedTellsAFlood(t *testing.T) {
	f, w := markerFeed(t, `DONE`)
	defer f.close()
	if _, err := w.WriteString("a line\n"); err != nil {
		t.Fatal(err)
	}
	waitWake(t, f.wake)
	if f.flooding.Load() {
		t.Fatal("a line is a flood")
	}
	line := strings.Repeat("y", 1023) + "\n"
	for range floodBytes/len(line) + 1 {
		if _, err := w.WriteString(line); err != nil {
			t.Fatal(err)
		}
	}
	waitWake(t, f.hint)
	if !f.flooding.Load() {
		t.Fatal("the hint came without the flood")
	}
	if _, err := w.WriteString("DONE\n"); err != nil {
		t.Fatal(err)
	}
	w.Close() // everything written is read before the end is
	deadline := time.Now().Add(5 * time.Second)
	for !f.ended.Load() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !f.ended.Load() {
		t.Fatal("the feed did not end")
	}
	if f.marked.Load() {
		t.Error("output after the flood was searched for the marker")
	}
}

func waitWake(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("no wake-up")
	}
}

// stoppingPiper counts the pipings and the stops of a pane's copying.
type stoppingPiper struct{ pipes, stops int }

func (p *stoppingPiper) PipeOutput(string, string) error { p.pipes++; return nil }
func (p *stoppingPiper) StopOutput(string)               { p.stops++ }

// A flooding pane's copying is stopped at the next turn of the watch, the screen is looked at
// every floodScreenPoll instead, and the copying starts again when the pause is over.
func TestFloodingPaneIsLookedAtInsteadOfFollowed(t *testing.T) {
	h := newHarness(t, setup{max: 3, phase: ralph.PhaseWorking, inactivity: 3600}, agentScript{})
	piper := &stoppingPiper{}
	cfg := h.config()
	cfg.Output = piper
	l := New(cfg)
	st := h.state()
	a := l.view.now()
	if err := h.fake.SetScreen(a.paneID, "flood 1\nflood 2"); err != nil {
		t.Fatal(err)
	}
	w := l.watcher.newScreenWatch(st)
	w.feed = l.pane.follow(a)
	if w.feed == nil || piper.pipes != 1 {
		t.Fatalf("the pane is not followed (pipes %d)", piper.pipes)
	}
	w.feed.flooding.Store(true)
	now := h.clock.Now()
	next := watchTimes{screen: now, status: now.Add(time.Hour)}
	step := func(at time.Time) {
		t.Helper()
		w.facts.Now = at
		if l.watcher.watchOnce(st, &a, &w, &next) {
			t.Fatal("the iteration ended")
		}
	}
	step(now)
	if piper.stops != 1 || w.feed != nil || l.pane.feed != nil {
		t.Fatalf("a flooding pane is still followed: stops %d, feed %v", piper.stops, w.feed)
	}
	if want := now.Add(floodScreenPoll); next.screen != want {
		t.Errorf("next look in %v, want %v", next.screen.Sub(now), floodScreenPoll)
	}
	log, _ := os.ReadFile(h.dir.IterationsLog())
	if !strings.Contains(string(log), "[WARN] iteration 1 agent's pane prints over 512 kB/s") {
		t.Errorf("the flood is not logged:\n%s", log)
	}
	// A changing screen during the pause is looked at every floodScreenPoll, not sooner.
	if err := h.fake.SetScreen(a.paneID, "flood 3\nflood 4"); err != nil {
		t.Fatal(err)
	}
	step(next.screen)
	if want := now.Add(2 * floodScreenPoll); next.screen != want || piper.pipes != 1 {
		t.Errorf("during the pause: next look in %v (want %v), pipes %d", next.screen.Sub(now), 2*floodScreenPoll, piper.pipes)
	}
	// The pause is over: followed again.
	step(now.Add(floodPauseMin))
	if piper.pipes != 2 || w.feed == nil {
		t.Errorf("not followed again after the pause: pipes %d", piper.pipes)
	}
	l.pane.unfollow()
}

// A starting agent whose pane floods is looked at every ReadyPoll, not at every read.
func TestDeliveryIsNotWokenByAFlood(t *testing.T) {
	f := &paneFeed{wake: make(chan struct{}, 1)}
	if deliveryWake(nil) != nil || deliveryWake(f) == nil {
		t.Fatal("a followed pane's output does not wake the delivery")
	}
	f.flooding.Store(true)
	if deliveryWake(f) != nil {
		t.Error("a flooding pane wakes the delivery")
	}
}
