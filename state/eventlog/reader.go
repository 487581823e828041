package eventlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
)

// Reader reads a log's events as they are written, each once, in order, across the log's
// rotation: it holds the file it reads open, so a file moved aside (and even replaced in turn)
// is still read to its end, then the rotated file is read if it is not that one (the log
// moved aside twice), then the new file from its start. The ids tell what was read already.
// What it cannot give is a file written, moved aside and replaced between two reads: more than
// twice MaxSize of events at once.
type Reader struct {
	log  Log
	last int64    // the id of the last event read (or the one to read after)
	f    *os.File // the file being read; nil before there is one
	off  int64    // where in f the next whole line starts
}

// Reader reads the events after id, then the events written as they come (Next).
func (l Log) Reader(after int64) *Reader { return &Reader{log: l, last: after} }

// Last is the id of the last event read (the id given, before any).
func (r *Reader) Last() int64 { return r.last }

// Close lets go of the file being read.
func (r *Reader) Close() {
	if r.f != nil {
		_ = r.f.Close()
		r.f = nil
	}
}

// Next returns the events written since the last call (all those after the id given, on the
// first), oldest first. A line not yet whole is left for the next call; a line that is not an
// event (torn by a crash) is passed over.
func (r *Reader) Next() ([]Event, error) {
	var out []Event
	keep := func(e Event) {
		if e.ID > r.last {
			out = append(out, e)
			r.last = e.ID
		}
	}
	if r.f != nil {
		if err := r.read(keep, true); err != nil {
			return out, err
		}
	}
	cur, err := os.Open(r.log.Path())
	if errors.Is(err, os.ErrNotExist) {
		// Between a rotation and the next event there is no log file: the file read so far
		// moved aside whole, and the rotated one holds what is not read yet.
		if r.f != nil {
			if err := r.read(keep, false); err != nil {
				return out, err
			}
		}
		return out, r.readRotated(keep, nil)
	}
	if err != nil {
		return out, err
	}
	if r.f != nil && sameFile(r.f, cur) {
		_ = cur.Close()
		return out, nil
	}
	// The file read so far moved aside (or none was read yet). Nothing is written to a file
	// once it has moved, and it moved before cur was made: read now, it is read whole.
	if r.f != nil {
		if err := r.read(keep, false); err != nil {
			_ = cur.Close()
			return out, err
		}
	}
	if err := r.readRotated(keep, cur); err != nil {
		_ = cur.Close()
		return out, err
	}
	r.Close()
	r.f, r.off = cur, 0
	return out, r.read(keep, true)
}

// readRotated reads the rotated file unless it is the file already read (r.f) or the one to
// be read next (cur).
func (r *Reader) readRotated(keep func(Event), cur *os.File) error {
	f, err := os.Open(r.log.Rotated())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if (r.f != nil && sameFile(r.f, f)) || (cur != nil && sameFile(cur, f)) {
		return nil
	}
	var off int64
	return readLines(f, &off, false, keep)
}

// read reads r.f from where it was left; whole: a line without its end is left for later.
func (r *Reader) read(keep func(Event), whole bool) error {
	return readLines(r.f, &r.off, whole, keep)
}

// readLines calls keep with every event of f from *off on and moves *off past what it read;
// with whole, a last line without its newline is left unread (a writer may be writing it).
func readLines(f *os.File, off *int64, whole bool, keep func(Event)) error {
	if _, err := f.Seek(*off, io.SeekStart); err != nil {
		return err
	}
	br := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && (line[len(line)-1] == '\n' || !whole) {
			*off += int64(len(line))
			var e Event
			if json.Unmarshal(bytes.TrimSpace(line), &e) == nil && e.ID > 0 {
				keep(e)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// sameFile reports whether a and b are open on the same file.
func sameFile(a, b *os.File) bool {
	fa, err := a.Stat()
	if err != nil {
		return false
	}
	fb, err := b.Stat()
	return err == nil && os.SameFile(fa, fb)
}

// Bounded is what Append makes of an event's texts (one line each, valid UTF-8, at most
// MaxText bytes): a reader makes the same of an event that comes from elsewhere.
func Bounded(e Event) Event { return bounded(e) }
