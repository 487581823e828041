package driver

import (
	"bytes"
	"encoding/json"
	"io"
	"os"

	"github.com/swarm-dev/swarm/ralph"
)

// Reading the events file. Any process of the user may append to it, lines of any length and
// as many as it likes: it is read in bounded pieces, a look at a time, and a line longer than
// any the recorder writes is passed over.

// eventsChunk is the most of the events file read at one look. The recorder's lines are far
// shorter (it keeps ralph.EventMessageKept of a message): a longer line is no event.
const eventsChunk = 256 << 10

// readEvents returns the events recorded since the last read.
func (sg *signalWatch) readEvents() []ralph.AgentEvent {
	return sg.events.read(sg.drv.dir().AgentEvents())
}

// read returns the events of the file at path since the last read, at most eventsChunk of them.
func (r *eventReader) read(path string) []ralph.AgentEvent {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	if fi.Size() < r.offset {
		r.offset, r.skipping = 0, false // a new file: a new agent's
	}
	data := readAt(f, r.offset, min(eventsChunk, fi.Size()-r.offset))
	full := int64(len(data)) == eventsChunk
	if r.skipping {
		end := bytes.IndexByte(data, '\n')
		if end < 0 {
			if full {
				r.offset += int64(len(data))
			}
			return nil
		}
		r.offset += int64(end + 1)
		data, r.skipping = data[end+1:], false
	}
	whole := bytes.LastIndexByte(data, '\n') + 1 // a line still being written waits
	if whole == 0 && full {
		r.offset, r.skipping = r.offset+int64(len(data)), true
		return nil
	}
	r.offset += int64(whole)
	return parseEvents(data[:whole])
}

// firstEvents are the events at the start of the file (eventsChunk of it).
func firstEvents(path string) []ralph.AgentEvent {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	data := readAt(f, 0, eventsChunk)
	return parseEvents(data[:bytes.LastIndexByte(data, '\n')+1])
}

// readAt reads up to n bytes of f from offset.
func readAt(f *os.File, offset, n int64) []byte {
	if n <= 0 {
		return nil
	}
	buf := make([]byte, n)
	got, err := f.ReadAt(buf, offset)
	if err != nil && err != io.EOF {
		return nil
	}
	return buf[:got]
}

// parseEvents reads JSON lines; damaged ones are skipped.
func parseEvents(data []byte) []ralph.AgentEvent {
	var out []ralph.AgentEvent
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		var e ralph.AgentEvent
		if len(bytes.TrimSpace(line)) > 0 && json.Unmarshal(line, &e) == nil {
			out = append(out, e)
		}
	}
	return out
}
