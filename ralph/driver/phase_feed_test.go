package driver

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

func TestFeedCountsWhatThePanePrints(t *testing.T) {
	path := filepath.Join(t.TempDir(), "output.fifo")
	// A file of another kind where the pipe belongs is replaced.
	if err := os.WriteFile(path, []byte("stale"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := openFeed(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.file.Close()
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("%s is not a named pipe: %v %v", path, fi, err)
	}
	if f.reads.Load() != 0 || !f.lastOutput().IsZero() {
		t.Fatal("a new feed has seen output")
	}
	// The copier tmux runs opens the pipe for writing and writes what the pane printed.
	w, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	if _, err := w.WriteString("hello\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.wake:
	case <-time.After(5 * time.Second):
		t.Fatal("no wake-up after output")
	}
	if f.reads.Load() == 0 || f.lastOutput().Before(before) {
		t.Errorf("reads %d, last output %v (written after %v)", f.reads.Load(), f.lastOutput(), before)
	}
	// The copier's end (its pane or the tmux server went) is the feed's end, and the loop is
	// told.
	w.Close()
	deadline := time.Now().Add(5 * time.Second)
	for !f.ended.Load() && time.Now().Before(deadline) {
		select {
		case <-f.wake:
		case <-time.After(100 * time.Millisecond):
		}
	}
	if !f.ended.Load() {
		t.Error("the copier's end did not end the feed")
	}
}

func TestFeedDoesNotEndBeforeTheCopierCame(t *testing.T) {
	f, err := openFeed(filepath.Join(t.TempDir(), "output.fifo"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	select {
	case <-f.wake:
		t.Fatalf("woken with no copier yet (ended %v)", f.ended.Load())
	case <-time.After(200 * time.Millisecond):
	}
}

func TestNextFedLook(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	cases := []struct {
		name          string
		now, looked   time.Time
		moved         bool
		quietAt, want time.Time
	}{
		{"printed: looked at minScreenPoll after the last look", at(100 * time.Millisecond), t0, true, at(time.Minute), at(minScreenPoll)},
		{"printed long after the last look: at once", at(10 * time.Second), t0, true, at(time.Minute), at(10 * time.Second)},
		{"still: judged when it would be quiet too long", at(time.Second), t0, false, at(3 * time.Second), at(3 * time.Second)},
		{"still, a long timeout: looked at after feedSafety", at(time.Second), t0, false, at(time.Hour), at(feedSafety)},
		{"quiet already judged: feedSafety", at(5 * time.Second), t0, false, at(3 * time.Second), at(feedSafety)},
	}
	for _, c := range cases {
		if got := nextFedLook(c.now, c.looked, c.moved, c.quietAt); !got.Equal(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got.Sub(t0), c.want.Sub(t0))
		}
	}
}

func TestWakeupOnlyWhileNoLookIsDue(t *testing.T) {
	f := &paneFeed{wake: make(chan struct{}, 1), hint: make(chan struct{}, 1)}
	w := screenWatch{feed: f}
	if w.wakeup() != f.wake {
		t.Error("a still pane's watch does not wake on output")
	}
	f.reads.Add(1)
	if w.wakeup() != f.hint {
		t.Error("a watch with a look due wakes at every write, or not for the marker")
	}
	w.seen = 1
	if w.wakeup() == nil {
		t.Error("after the look the watch does not wake on output again")
	}
	if (&screenWatch{}).wakeup() != nil {
		t.Error("a polled watch has a wake-up")
	}
}

// markerFeed opens a feed that looks for pattern, and the writing end a copier would hold;
// the test closes the feed, and the writer when it does not close it itself.
func markerFeed(t *testing.T, pattern string) (*paneFeed, *os.File) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "output.fifo")
	re := regexp.MustCompile(pattern)
	f, err := openFeed(path, func(s string) [][]int { return re.FindAllStringIndex(s, -1) })
	if err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		f.close()
		t.Fatal(err)
	}
	return f, w
}

func TestFeedMarksOutputThatMayHoldTheMarker(t *testing.T) {
	f, w := markerFeed(t, `<promise>COMPLETE</promise>`)
	defer f.close()
	defer w.Close()
	write := func(s string) {
		t.Helper()
		n := f.reads.Load()
		if _, err := w.WriteString(s); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for f.reads.Load() == n && time.Now().Before(deadline) {
			<-f.wake
		}
	}
	write("working \x1b[1mhard\x1b[0m\n")
	if f.marked.Load() {
		t.Fatal("output without the marker marked")
	}
	// Colored and split between two writes, as a terminal program may print it.
	write("Done. <prom")
	write("ise>\x1b[32mCOMPLETE\x1b[0m</promise>\n")
	if !f.marked.Load() {
		t.Error("the marker was not noticed")
	}
	select {
	case <-f.hint:
	default:
		t.Error("the marker gave no hint to wake the loop")
	}
	// Output after the marker is not the marker again, though the marker is still in the text
	// kept from the reads before.
	f.marked.Store(false)
	write("❯ \n")
	if f.marked.Load() {
		t.Error("output after the marker marked again")
	}
}

// A look through the feed dates the screen's last change by the output, not by itself.
func TestDatedChange(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	ms := time.Millisecond
	cases := []struct {
		name                       string
		last, now, prevLook, outAt time.Time
		changed                    bool
		want                       time.Time
	}{
		{"changed: when the output that changed it came, not the look 240 ms later",
			at(0), at(1000 * ms), at(750 * ms), at(760 * ms), true, at(760 * ms)},
		{"changed with nothing read since the last look: the look's own time",
			at(0), at(1000 * ms), at(750 * ms), at(700 * ms), true, at(1000 * ms)},
		{"changed, output dated after the look (clock steps): the look's time",
			at(0), at(1000 * ms), at(750 * ms), at(1200 * ms), true, at(1000 * ms)},
		{"unchanged, output read just after the last look: it was on that screen",
			at(700 * ms), at(1000 * ms), at(750 * ms), at(800 * ms), false, at(800 * ms)},
		{"unchanged, output read well after the last look changed nothing",
			at(700 * ms), at(1000 * ms), at(750 * ms), at(900 * ms), false, at(700 * ms)},
		{"unchanged, nothing read since the last look",
			at(700 * ms), at(1000 * ms), at(750 * ms), at(740 * ms), false, at(700 * ms)},
		{"never earlier than dated before",
			at(780 * ms), at(1000 * ms), at(750 * ms), at(760 * ms), true, at(780 * ms)},
	}
	for _, c := range cases {
		if got := datedChange(c.last, c.now, c.prevLook, c.outAt, c.changed); !got.Equal(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got.Sub(t0), c.want.Sub(t0))
		}
	}
}
