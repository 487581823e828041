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
