package loop

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// The Regent's own log (regent.log) and each loop's monitor.log: whole lines, each starting
// with the time, bounded (rotated to NAME.1 past LogMax), and sparing a nearly full disk
// (state.Log): they only tell what happened, and must not take the room the loops' state and
// records need to get going again. A line left out for that is counted, and the count said
// with the next line that can be written.

// LogMax bounds regent.log and each loop's monitor.log: past it the log moves to NAME.1 and
// starts afresh, so each keeps its last 2 MiB at least (a loop's monitor.log: about 15,000
// iterations), 4 MiB at most.
const LogMax = 2 << 20

// logTimeFormat starts every line of the loop's logs (as ralph.Dir.LogEvent writes them).
const logTimeFormat = "2006-01-02T15:04:05"

// timestamped prefixes every line written to a log with the time.
type timestamped struct{ w io.Writer }

func (t timestamped) Write(p []byte) (int, error) {
	ts := time.Now().Format(logTimeFormat) + " "
	var b strings.Builder
	for _, l := range strings.SplitAfter(string(p), "\n") {
		if l != "" {
			b.WriteString(ts + l)
		}
	}
	if _, err := io.WriteString(t.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// MonitorLog is where a background monitor writes the loop's lines: its monitor.log, whole
// lines each starting with the time.
func MonitorLog(ld ralph.Dir) io.Writer { return timestamped{ownLog(ld.MonitorLog())} }

// AppendMonitorLog adds one line, with the time, to the loop's monitor.log.
func AppendMonitorLog(ld ralph.Dir, line string) {
	_, _ = MonitorLog(ld).Write([]byte(line + "\n"))
}

// TimedLog is one of swarm's own logs at path (the Regent's regent.log), whole lines each
// starting with the time, as MonitorLog is a loop's.
func TimedLog(path string) io.Writer { return timestamped{ownLog(path)} }

// ownLog is one of swarm's own logs at path, as written through one writer.
func ownLog(path string) *logAppender {
	return &logAppender{log: state.Log{Path: path, Max: LogMax, Mark: state.TornMark, Spare: true}}
}

// logAppender writes each Write to a log as whole lines (see state.Log), and counts the lines
// a nearly full disk kept out, to say so with the next one it takes.
type logAppender struct {
	log state.Log

	mu   sync.Mutex
	left int // lines left out since the last one written
}

func (a *logAppender) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	text := string(p)
	if a.left > 0 {
		text = fmt.Sprintf("%s (%d lines of this log were left out: the disk was nearly full)\n%s",
			time.Now().Format(logTimeFormat), a.left, text)
	}
	if err := a.log.Append(text); err != nil {
		if errors.Is(err, state.ErrLogRoom) {
			a.left += max(strings.Count(string(p), "\n"), 1)
		}
		return 0, err
	}
	a.left = 0
	return len(p), nil
}
