package testrun

import (
	"bytes"
	"fmt"
	"os"
)

// What of a run's output is kept, in memory and in its file: the first HeadSize bytes (how
// the run started: the tool's version, the first error of a build) and the last TailSize
// (where a suite says what failed). Whatever lies between is cut, and a line says so.
const (
	HeadSize = 8 << 10
	TailSize = 1 << 20
)

// lineNear is how far from a cut a line's end is looked for.
const lineNear = 4 << 10

// output keeps a run's output bounded while it comes: the head, and the tail in a buffer
// compacted back to TailSize whenever it reaches twice that. Its file follows the output
// while all of it is kept, and is rewritten to head, note and tail at the end when it was cut.
type output struct {
	head    []byte
	tail    []byte
	size    int64
	file    *os.File
	fileErr error
}

func newOutput(path string) *output {
	o := &output{}
	if path != "" {
		o.file, o.fileErr = os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	}
	return o
}

// Write keeps what it must of p; it never fails, so the command is never stopped by it.
func (o *output) Write(p []byte) (int, error) {
	n := len(p)
	o.size += int64(n)
	if o.file != nil && o.fileErr == nil && o.size <= HeadSize+TailSize {
		_, o.fileErr = o.file.Write(p)
	}
	if room := HeadSize - len(o.head); room > 0 {
		k := min(room, len(p))
		o.head = append(o.head, p[:k]...)
		p = p[k:]
	}
	o.tail = append(o.tail, p...)
	if len(o.tail) >= 2*TailSize {
		o.tail = o.tail[:copy(o.tail, o.tail[len(o.tail)-TailSize:])]
	}
	return n, nil
}

// kept is what is kept of the output, how much there was, and whether some was cut.
func (o *output) kept() (text string, size int64, cut bool) {
	if o.size <= HeadSize+TailSize {
		return string(o.head) + string(o.tail), o.size, false
	}
	head, tail := o.head, o.tail[len(o.tail)-TailSize:]
	// Whole lines on either side of the cut, when a line ends near it.
	if i := bytes.LastIndexByte(head[max(0, len(head)-lineNear):], '\n'); i >= 0 {
		head = head[:max(0, len(head)-lineNear)+i+1]
	}
	if i := bytes.IndexByte(tail[:min(len(tail), lineNear)], '\n'); i >= 0 {
		tail = tail[i+1:]
	}
	var b bytes.Buffer
	b.Write(head)
	if !bytes.HasSuffix(head, []byte("\n")) {
		b.WriteByte('\n')
	}
	dropped := o.size - int64(len(head)) - int64(len(tail))
	fmt.Fprintf(&b, "[... %s of output cut here: %s in all; its first %s and last %s are kept ...]\n",
		Size(dropped), Size(o.size), Size(HeadSize), Size(TailSize))
	b.Write(tail)
	return b.String(), o.size, true
}

// close finishes the file: when the output was cut, it is rewritten to what was kept. It
// returns why the file does not hold the output, if it does not.
func (o *output) close() error {
	if o.file == nil {
		return o.fileErr
	}
	if text, _, cut := o.kept(); cut && o.fileErr == nil {
		if _, err := o.file.WriteAt([]byte(text), 0); err != nil {
			o.fileErr = err
		} else {
			o.fileErr = o.file.Truncate(int64(len(text)))
		}
	}
	if err := o.file.Close(); err != nil && o.fileErr == nil {
		o.fileErr = err
	}
	return o.fileErr
}

// Size is a number of bytes as people read it: "512 bytes", "8 KiB", "1.5 MiB", "2.1 GiB".
func Size(n int64) string {
	const k = 1024
	switch {
	case n < k:
		return fmt.Sprintf("%d bytes", n)
	case n < k*k:
		return trimZero(float64(n)/k) + " KiB"
	case n < k*k*k:
		return trimZero(float64(n)/(k*k)) + " MiB"
	}
	return trimZero(float64(n)/(k*k*k)) + " GiB"
}

// trimZero is f to one decimal, without a decimal that is zero.
func trimZero(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}
