package stream

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// wire writes the stream's text: `retry:` once, then each event as `id: CURSOR` and
// `data: JSON` and a blank line, and a comment now and then. An event is JSON on one line
// whatever its texts hold (encoding/json escapes every control character), so nothing a
// log's text says can end an event or start another.
type wire struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	buf     *bufio.Writer
	timeout time.Duration
}

func newWire(w http.ResponseWriter, timeout time.Duration) *wire {
	return &wire{w: w, rc: http.NewResponseController(w), buf: bufio.NewWriterSize(w, 16<<10), timeout: timeout}
}

func (o *wire) start() error {
	_, _ = o.buf.WriteString("retry: " + strconv.FormatInt(Retry.Milliseconds(), 10) + "\n\n")
	return o.flush()
}

func (o *wire) ping() error {
	_, _ = o.buf.WriteString(": keep-alive\n\n")
	return o.flush()
}

// frames writes the frames and sends them on at once.
func (o *wire) frames(fs []frame) error {
	if len(fs) == 0 {
		return nil
	}
	for _, f := range fs {
		data, err := json.Marshal(f.event)
		if err != nil {
			return err
		}
		_, _ = o.buf.WriteString("id: " + f.cursor + "\ndata: ")
		_, _ = o.buf.Write(data)
		_, _ = o.buf.WriteString("\n\n")
		if o.buf.Buffered() > 12<<10 {
			if err := o.flush(); err != nil {
				return err
			}
		}
	}
	return o.flush()
}

// flush sends what is written, within the timeout: a subscriber that reads nothing is let go.
func (o *wire) flush() error {
	_ = o.rc.SetWriteDeadline(time.Now().Add(o.timeout))
	if err := o.buf.Flush(); err != nil {
		return err
	}
	return o.rc.Flush()
}
