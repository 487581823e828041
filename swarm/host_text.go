package swarm

import (
	"errors"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/swarm-dev/swarm/swarm/remote"
	"github.com/swarm-dev/swarm/swarm/report"
)

// Text from another host is untrusted: its swarm may be broken, or no swarm at all. What it
// says in a message or a table cell is cut short and shown with its control characters and
// escape sequences as escapes (report.Clean, the rules `swarm report` applies to a host's
// report); what a command there prints (status, peek, logs, ...) passes through escaping,
// which keeps its lines and tabs and escapes the rest. Only `attach` hands the terminal
// over, as a terminal on the host.

// hostText is text a host said, safe for one line of a message or a table cell.
func hostText(s string) string { return report.Clean(report.Cut(s)) }

// hostProblem is why a host did not answer, in one line safe to print.
func hostProblem(err error) string { return hostText(oneLineOf(err)) }

// hostError is err with what a host's swarm said in it (a *remote.RemoteError) made safe to
// print, for the messages that wrap it.
func hostError(err error) error {
	var re *remote.RemoteError
	if !errors.As(err, &re) {
		return err
	}
	return &remote.RemoteError{Host: re.Host, Code: re.Code, Said: hostText(re.Said)}
}

// escaping passes a host's output on to out with report.CleanLines: it holds back nothing
// but a character cut in two by the writes, so a stream (logs --follow) flows as it comes.
type escaping struct {
	mu      sync.Mutex
	out     io.Writer
	partial []byte
}

func escapeTo(out io.Writer) *escaping { return &escaping{out: out} }

func (e *escaping) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	data := append(e.partial, p...)
	n := len(data) - incompleteTail(data)
	e.partial = append([]byte(nil), data[n:]...)
	if n > 0 {
		if _, err := io.WriteString(e.out, report.CleanLines(string(data[:n]))); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush passes on what is held back: a character that never came whole is shown as U+FFFD.
func (e *escaping) Flush() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.partial) > 0 {
		_, _ = io.WriteString(e.out, report.CleanLines(string(e.partial)))
		e.partial = nil
	}
}

// incompleteTail is how many bytes at the end of p begin a UTF-8 character that is not
// complete yet.
func incompleteTail(p []byte) int {
	for i := 1; i <= utf8.UTFMax-1 && i <= len(p); i++ {
		c := p[len(p)-i]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(p[len(p)-i:]) {
				return 0
			}
			return i
		}
	}
	return 0
}
