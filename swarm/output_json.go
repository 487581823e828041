package swarm

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// Streamed JSON output: one object per line (JSON Lines), so that a script can read each as
// it comes (`logs --follow --format json`, `wait --format json`).

// stamp is a time as every JSON output gives it: RFC 3339, with its zone.
func stamp(t time.Time) string { return t.Format(time.RFC3339) }

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// outputLine is one line of a worker's output, as `logs --format json` gives it.
type outputLine struct {
	Worker string `json:"worker"`
	Stream string `json:"stream"` // screen (a tmux pane), stdout or stderr (a process worker's log)
	Time   string `json:"time"`   // when it was read
	Line   string `json:"line"`
}

// lineWriter hands each complete line written to it (without its newline) to emit; what
// follows the last newline waits for the next write, or for flush. A loop's output is
// written from more than one goroutine (the loop, its signal handler): writes take turns.
type lineWriter struct {
	emit    func(line string) error
	mu      sync.Mutex
	partial bytes.Buffer
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial.Write(p)
	for {
		i := bytes.IndexByte(w.partial.Bytes(), '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(w.partial.Next(i + 1))
		if err := w.emit(line[:len(line)-1]); err != nil {
			return len(p), err
		}
	}
}

// flush hands on what is left without a newline.
func (w *lineWriter) flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.partial.Len() == 0 {
		return nil
	}
	line := w.partial.String()
	w.partial.Reset()
	return w.emit(line)
}

// jsonLines turns the text written to it into outputLine records on out, one per line.
func jsonLines(out io.Writer, worker, stream string) *lineWriter {
	return &lineWriter{emit: func(line string) error {
		return writeJSONLine(out, outputLine{Worker: worker, Stream: stream, Time: stamp(time.Now()), Line: line})
	}}
}
