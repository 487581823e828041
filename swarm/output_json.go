package swarm

import (
	"bytes"
	"encoding/json"
	"io"
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

// jsonLineWriter turns the text written to it into outputLines, one per complete line; the
// rest waits for its newline (or for flush).
type jsonLineWriter struct {
	out            io.Writer
	worker, stream string
	partial        bytes.Buffer
}

func (j *jsonLineWriter) Write(p []byte) (int, error) {
	j.partial.Write(p)
	for {
		i := bytes.IndexByte(j.partial.Bytes(), '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(j.partial.Next(i + 1))
		if err := j.emit(line[:len(line)-1]); err != nil {
			return len(p), err
		}
	}
}

// flush writes what is left without a newline.
func (j *jsonLineWriter) flush() error {
	if j.partial.Len() == 0 {
		return nil
	}
	line := j.partial.String()
	j.partial.Reset()
	return j.emit(line)
}

func (j *jsonLineWriter) emit(line string) error {
	return writeJSONLine(j.out, outputLine{Worker: j.worker, Stream: j.stream, Time: stamp(time.Now()), Line: line})
}
