package eventlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// MaxSize is where the log moves to events.jsonl.1: what it keeps is the last MaxSize bytes
// of events at least (tens of thousands of events: many nights of fifty loops), twice that at
// most.
const MaxSize = 8 << 20

// Log is the event log of one state directory.
type Log struct {
	Root string
	// Max is the size past which the file moves aside; 0 is MaxSize. Every writer of a log
	// uses the same; a smaller one lets a test see the log rotate.
	Max int64
}

func (l Log) max() int64 {
	if l.Max > 0 {
		return l.Max
	}
	return MaxSize
}

// Path is the log's file; Rotated the one its older events moved to.
func (l Log) Path() string     { return filepath.Join(l.Root, "events.jsonl") }
func (l Log) Rotated() string  { return l.Path() + ".1" }
func (l Log) lockPath() string { return filepath.Join(l.Root, "events.lock") }

// Append writes e as the next event, with the next id and now as its time (unless set), and
// returns it as written. Writers take turns under the log's lock, so ids never repeat and
// lines never interleave.
func (l Log) Append(e Event) (Event, error) {
	lock := flock.New(l.lockPath())
	if err := lock.Lock(); err != nil {
		return e, fmt.Errorf("event log: %w", err)
	}
	defer lock.Unlock()
	last, err := l.lastID()
	if err != nil {
		return e, err
	}
	e = bounded(e)
	e.ID = last + 1
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	line, err := json.Marshal(e)
	if err != nil {
		return e, err
	}
	line = append(line, '\n')
	if err := l.rotateFor(int64(len(line))); err != nil {
		return e, err
	}
	f, err := os.OpenFile(l.Path(), os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return e, err
	}
	defer f.Close()
	if endsMidLine(f) {
		// A writer that died mid-line: this event starts on a line of its own.
		line = append([]byte("\n"), line...)
	}
	if _, err := f.Write(line); err != nil {
		return e, err
	}
	return e, nil
}

// rotateFor moves the log aside when n more bytes would take it past MaxSize.
func (l Log) rotateFor(n int64) error {
	fi, err := os.Stat(l.Path())
	if err != nil || fi.Size()+n <= l.max() {
		return nil
	}
	return os.Rename(l.Path(), l.Rotated())
}

// endsMidLine reports whether f holds something that does not end with a newline.
func endsMidLine(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return false
	}
	b := make([]byte, 1)
	_, err = f.ReadAt(b, fi.Size()-1)
	return err == nil && b[0] != '\n'
}

// LastID is the id of the newest event (0 for none).
func (l Log) LastID() (int64, error) { return l.lastID() }

func (l Log) lastID() (int64, error) {
	for _, path := range []string{l.Path(), l.Rotated()} {
		id, err := lastIDIn(path)
		if err != nil || id > 0 {
			return id, err
		}
	}
	return 0, nil
}

// lastIDIn reads the id of the last whole event of the file at path (0 when it has none).
func lastIDIn(path string) (int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	const tail = 64 << 10
	start := max(fi.Size()-tail, 0)
	buf := make([]byte, fi.Size()-start)
	if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	lines := bytes.Split(buf, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		var e Event
		if json.Unmarshal(lines[i], &e) == nil && e.ID > 0 {
			return e.ID, nil
		}
	}
	return 0, nil
}

// Since is every event kept whose id is above id, oldest first, at most n (n <= 0: all).
// A line that is not an event (torn by a crash) is passed over.
func (l Log) Since(id int64, n int) ([]Event, error) {
	var out []Event
	for _, path := range []string{l.Rotated(), l.Path()} {
		if err := readEvents(path, func(e Event) {
			if e.ID > id {
				out = append(out, e)
			}
		}); err != nil {
			return nil, err
		}
	}
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out, nil
}

// readEvents calls each with every event of the file at path, in order.
func readEvents(path string, each func(Event)) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var e Event
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.ID > 0 {
			each(e)
		}
	}
	return sc.Err()
}
