package driver

import (
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/acarl005/stripansi"

	"github.com/swarm-dev/swarm/ralph"
)

// Following a pane's output: tmux copies what the agent's pane prints into a named pipe in the
// loop's directory and a goroutine reads it, so the loop learns the moment the screen may have
// changed. A pane that printed nothing has not changed: a still agent is not looked at at all,
// and is ended the moment it has been quiet too long; a moving one is looked at as soon as it
// moved. Where tmux cannot pipe a pane, the screen is polled instead (see nextScreenPoll).

// OutputPiper copies a pane's output into a named pipe.
type OutputPiper interface {
	// PipeOutput starts copying, replacing any copying of the pane there was.
	PipeOutput(paneID, fifo string) error
	// StopOutput stops the copying into fifo, also for a pane that has ended (tmux will not
	// touch those).
	StopOutput(fifo string)
}

// paneFeed is the reading end of a loop's output pipe.
type paneFeed struct {
	file *os.File
	// hold is a writing end of the feed's own, kept until the copier's first line arrives:
	// until then the pipe must not read as ended; from then on its end is the copier's.
	hold    *os.File
	release sync.Once
	// wake holds one wake-up for the loop when something arrived since it last waited.
	wake chan struct{}
	// reads counts the reads so far: a look at the screen that noted it knows whether
	// anything was printed after it.
	reads atomic.Uint64
	last  atomic.Int64 // when output last arrived, Unix nanoseconds
	// ended: every copier is gone (with its pane, with the tmux server, or replaced).
	ended atomic.Bool
	// marked: output since the last look may hold the done marker (see markers); the
	// screen is looked at once, not at the next minScreenPoll, and hint wakes the loop for
	// it even while it waits for a look already due.
	marked atomic.Bool
	hint   chan struct{}
	// flooding: the pane prints faster than floodBytes a floodWindow (see floodMeter). From
	// then on what arrives is read and dropped, unexamined, until the loop stops the copying.
	flooding atomic.Bool
	markers  func(text string) [][]int // where the done pattern matches in text
	pane     string                    // the pane whose output is piped in; "" when none is
}

// openFeed makes the loop's pipe (a file of another kind in its place is replaced) and opens
// it for reading.
func openFeed(path string, markers func(string) [][]int) (*paneFeed, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeNamedPipe == 0 {
		if err := os.Remove(path); err != nil {
			return nil, err
		}
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, err
	}
	file, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	hold, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		file.Close()
		return nil, err
	}
	f := &paneFeed{file: file, hold: hold, wake: make(chan struct{}, 1), hint: make(chan struct{}, 1), markers: markers}
	go f.read()
	return f, nil
}

func (f *paneFeed) read() {
	buf := make([]byte, 64<<10)
	var tail string // the end of the last read: a marker may be split between two
	var meter floodMeter
	for {
		n, err := f.file.Read(buf)
		if n > 0 {
			f.release.Do(func() { f.hold.Close() })
			now := time.Now()
			f.last.Store(now.UnixNano())
			if !f.flooding.Load() && meter.add(now, n) {
				f.flooding.Store(true)
				notify(f.hint) // the loop stops the copying at once, even with a look due
			}
			if f.markers != nil && !f.flooding.Load() {
				text := tail + stripansi.Strip(string(buf[:n]))
				if endsAfter(f.markers(text), len(tail)) {
					f.marked.Store(true)
					notify(f.hint)
				}
				tail = text[max(0, len(text)-markerTail):]
			}
			f.arrived()
		}
		if errors.Is(err, io.EOF) {
			f.ended.Store(true)
			f.arrived()
		}
		if err != nil {
			return
		}
	}
}

// floodBytes a floodWindow is where a pane's output becomes a flood: more than an agent's
// screen redraws (tens of kB a second) or the echo of a long prompt, less than a command
// printing without pause. Reading a flood costs the Regent a core, and what it cannot read
// in time piles up in the tmux server (a gigabyte in a minute and a half).
const (
	floodBytes  = 512 << 10
	floodWindow = time.Second
)

// floodMeter counts the bytes read in the current floodWindow.
type floodMeter struct {
	start time.Time
	bytes int
}

// add counts n bytes read at now and reports whether the window they fall in holds a flood.
func (m *floodMeter) add(now time.Time, n int) bool {
	if now.Sub(m.start) >= floodWindow {
		m.start, m.bytes = now, 0
	}
	m.bytes += n
	return m.bytes > floodBytes
}

// endsAfter reports a match that ends past from: one not wholly inside the text kept from
// earlier reads (a marker found there already counted).
func endsAfter(matches [][]int, from int) bool {
	for _, m := range matches {
		if m[1] > from {
			return true
		}
	}
	return false
}

// markerTail is how much of one read is kept to find a marker split across two.
const markerTail = 256

// arrived tells the loop that something happened on the pipe.
func (f *paneFeed) arrived() {
	f.reads.Add(1)
	notify(f.wake)
}

func (f *paneFeed) close() {
	f.release.Do(func() { f.hold.Close() })
	_ = f.file.Close()
}

// lastOutput is when the pane last printed something (zero: not since the feed opened).
func (f *paneFeed) lastOutput() time.Time {
	if ns := f.last.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

// paneFollower keeps the loop's feed and the pane it follows, for the delivery and the watch
// alike: one feed per loop, piped again only when the agent's pane changes.
type paneFollower struct {
	output OutputPiper // nil: no piping tmux client, the screen is polled
	dir    ralph.Dir
	pats   *patterns // the done pattern, which the feed looks for as output arrives
	feed   *paneFeed // the agent's output, where it is followed
}

// follow makes sure the agent's pane is piped into the loop's feed and returns the feed;
// nil means the screen is polled (no piping tmux client, or piping failed).
func (pf *paneFollower) follow(a agent) *paneFeed {
	piper := pf.output
	if piper == nil || a.paneID == "" {
		return nil
	}
	if pf.feed != nil && pf.feed.ended.Load() {
		pf.feed.close()
		pf.feed = nil
	}
	if pf.feed == nil {
		var markers func(string) [][]int
		if re := pf.pats.doneRE; re != nil {
			markers = func(text string) [][]int { return re.FindAllStringIndex(text, -1) }
		}
		f, err := openFeed(pf.dir.OutputPipe(), markers)
		if err != nil {
			return nil
		}
		pf.feed = f
	}
	if pf.feed.pane != a.paneID {
		// Piping again replaces a copier an earlier monitor left; the old one ends.
		if err := piper.PipeOutput(a.paneID, pf.dir.OutputPipe()); err != nil {
			pf.feed.pane = ""
			return nil
		}
		pf.feed.pane = a.paneID
	}
	return pf.feed
}

// unfollow stops the copying and closes the feed, when the loop is no longer driven here.
func (pf *paneFollower) unfollow() {
	if pf.feed == nil {
		return
	}
	pf.feed.close()
	if pf.feed.pane != "" {
		pf.output.StopOutput(pf.dir.OutputPipe())
	}
	pf.feed = nil
}

// feedSafety is how long a followed pane goes unlooked at while it prints nothing: the look
// that catches a copying that stopped without a word.
const feedSafety = 60 * time.Second

// serverProbe is how often a followed pane that prints nothing is asked about, one question
// to tmux: a pane that is merely quiet and a server that no longer answers look alike from
// the feed, and the loop must not take the one for the other for long.
const serverProbe = 20 * time.Second

// serverSilentNow asks the server about the pane when serverProbe has passed since the last
// look or question, and reports whether it did not answer.
func (l *Loop) serverSilentNow(w *screenWatch, now time.Time) bool {
	if now.Before(w.looked.Add(serverProbe)) || now.Before(w.probed.Add(serverProbe)) {
		return false
	}
	w.probed = now
	_, err := l.cfg.Tmux.PaneNow(l.seen.paneID)
	return l.outage.notAnswering(err)
}

// screenFed looks at a followed pane only when it printed something since the last look (at
// most every minScreenPoll) or feedSafety after it; an agent that printed nothing is ended the
// moment it has been quiet too long, without a look. It reports whether the iteration ended.
func (l *Loop) screenFed(st *ralph.State, a *agent, w *screenWatch, next *watchTimes) bool {
	now := w.facts.Now
	if w.feed.ended.Load() {
		// The copier is gone, with the pane or the tmux server, or alone: pipe the pane
		// again, or, when that fails, find out what became of it by looking.
		if w.feed = l.pane.follow(*a); w.feed == nil {
			next.screen = now
			return false
		}
	}
	moved := w.feed.reads.Load() != w.seen
	if !moved && l.serverSilentNow(w, now) {
		return false
	}
	if !moved {
		if ending, ok := ralph.Quiet(w.facts); ok {
			l.end(st, *a, ending)
			return true
		}
	}
	marked := moved && w.feed.marked.Swap(false)
	if marked || moved && !now.Before(w.looked.Add(minScreenPoll)) || !now.Before(w.looked.Add(feedSafety)) {
		if moved && l.doneFileNow() {
			// An agent that made the DONE file has shown it working: seen now, not at the
			// next status poll.
			l.end(st, *a, ralph.EndDoneFile)
			return true
		}
		seenBefore := w.lastHash
		w.prevLook, w.outAt = w.looked, time.Unix(0, w.feed.last.Load())
		w.seen, w.looked = w.feed.reads.Load(), now
		if l.lookAtScreen(st, a, w) {
			return true
		}
		if !moved && seenBefore != "" && w.lastHash != seenBefore {
			// The screen changed with nothing copied: pipe the pane again. (Its last change
			// may be dated anew without one, see datedChange: that is no sign.)
			l.pane.feed.pane = ""
			w.feed = l.pane.follow(*a)
			if w.feed == nil {
				return false
			}
		}
		moved = w.feed.reads.Load() != w.seen
	}
	next.screen = nextFedLook(now, w.looked, moved, ralph.QuietAt(w.facts))
	if probe := maxTime(w.looked, w.probed).Add(serverProbe); probe.Before(next.screen) {
		next.screen = probe
	}
	return false
}

// outputLag bounds how long output takes from the pane to the feed (through tmux and its
// copier): output read that soon after a look may already have been on the screen it saw.
const outputLag = 100 * time.Millisecond

// datedChange dates the screen's last change after a look through the feed (last: as dated
// so far). A screen that changed did so with the last output read before the look (at outAt),
// not when the look came, up to minScreenPoll later. One that did not change may still have
// moved: output read within outputLag after the previous look (at prevLook) was probably on
// the screen that look saw already, and dates the change, so a quiet agent is not ended early.
func datedChange(last, now, prevLook, outAt time.Time, changed bool) time.Time {
	switch {
	case changed && outAt.After(prevLook) && !outAt.After(now):
		return maxTime(last, outAt)
	case changed:
		return now
	case outAt.After(prevLook) && !outAt.After(prevLook.Add(outputLag)):
		return maxTime(last, outAt)
	}
	return last
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// nextFedLook is when a followed pane is next looked at, or its quiet judged: minScreenPoll
// after the last look when it has printed since, else when it would have been quiet too long,
// at the latest feedSafety after the last look.
func nextFedLook(now, looked time.Time, moved bool, quietAt time.Time) time.Time {
	if moved {
		if at := looked.Add(minScreenPoll); at.After(now) {
			return at
		}
		return now
	}
	at := looked.Add(feedSafety)
	if quietAt.After(now) && quietAt.Before(at) {
		at = quietAt
	}
	return at
}

// wakeup is what wakes the watch early when the pane prints. While a look is already due only
// output that may hold the done marker does (a pane printing steadily wakes it once per look,
// not at every write; the marker is seen the moment it comes).
func (w *screenWatch) wakeup() <-chan struct{} {
	switch {
	case w.feed == nil:
		return nil
	case w.feed.reads.Load() != w.seen:
		return w.feed.hint // only output that may hold the marker brings the look forward
	}
	return w.feed.wake
}

// settleFed is letTurnFinish for a followed pane: the turn has settled once the pane printed
// nothing for turnSettlePoll, seen without a capture, and no sooner than turnSettlePoll after
// the marker was seen: the agent's records are written a moment after its screen (a shorter
// wait lost the last turn's cost from Claude Code's transcript).
func (l *Loop) settleFed(a agent, feed *paneFeed) {
	seen := l.cfg.Clock.Now()
	deadline := seen.Add(turnSettle)
	for {
		now := l.cfg.Clock.Now()
		until := seen.Add(turnSettlePoll)
		if quiet := feed.lastOutput().Add(turnSettlePoll); quiet.After(until) {
			until = quiet
		}
		if !now.Before(until) || !now.Before(deadline) || !l.cfg.Procs.Alive(a.pid) {
			return
		}
		l.cfg.Clock.Sleep(min(until.Sub(now), deadline.Sub(now)))
	}
}

// doneFileNow reports a DONE file present.
func (l *Loop) doneFileNow() bool {
	present, _ := l.cfg.Dir.DoneMarker()
	return present
}
