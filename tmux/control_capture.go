package tmux

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// Capture is Exec.Capture through the control client. The text goes through a uniquely named
// buffer and show-buffer, not capture-pane -p: tmux 3.3a (what Debian and Ubuntu ship) never
// frees what capture-pane -p writes to a control client, so a loop looking at a busy screen
// four times a second grew the server by the size of every capture, about 0.7 MB a second
// with 2000 lines of scrollback. show-buffer frees its copy; it escapes
// the text (see unvis), which is undone here.
func (c *Control) Capture(paneID string, historyLines int) (string, error) {
	if !validTarget(paneID) {
		return "", fmt.Errorf("invalid pane %q", paneID)
	}
	buf := "swarm-capture-" + uuid.NewString()
	capture := "capture-pane -J -b " + buf + " -t " + paneID
	if historyLines < 0 {
		capture += " -S -"
	} else if historyLines > 0 {
		capture += " -S " + strconv.Itoa(-historyLines)
	}
	// One exchange: the three commands are answered in order, and the buffer is deleted
	// whatever became of the first two.
	replies, err := c.runAll(capture, "show-buffer -b "+buf, "delete-buffer -b "+buf)
	if err != nil {
		return "", err
	}
	if replies[0].err != nil {
		return "", replies[0].err
	}
	if replies[1].err != nil {
		// tmux keeps no buffer for an empty capture.
		return "", nil
	}
	// The buffer ends with the last line's newline, which capture-pane -p leaves out.
	return unvis(strings.TrimSuffix(replies[1].out, "\n")), nil
}

// unvis undoes show-buffer's escaping: a backslash as \\, a $ that could start a variable
// ($WORK, ${X}) as \$, the C escapes \a \b \t \n \v \f \r (and \s, \0), and any other byte that
// is not printable text as \ and three octal digits. Anything else is kept as it is.
func unvis(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		if n, ok := octalByte(s[i+1:]); ok {
			b.WriteByte(n)
			i += 3
			continue
		}
		if r, ok := cEscapes[s[i+1]]; ok {
			b.WriteByte(r)
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// cEscapes are the one-character escapes show-buffer writes, by the character after the
// backslash.
var cEscapes = map[byte]byte{'\\': '\\', '$': '$', 'a': '\a', 'b': '\b', 't': '\t', 'n': '\n', 'v': '\v',
	'f': '\f', 'r': '\r', 's': ' ', '0': 0}

// octalByte reads three octal digits at the start of s as one byte.
func octalByte(s string) (byte, bool) {
	if len(s) < 3 {
		return 0, false
	}
	n := 0
	for _, d := range []byte(s[:3]) {
		if d < '0' || d > '7' {
			return 0, false
		}
		n = n*8 + int(d-'0')
	}
	if n > 0xff {
		return 0, false
	}
	return byte(n), true
}
