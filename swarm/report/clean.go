package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clean makes text from a record (an agent's error, a checker's message, a host's reply) safe
// to print on a terminal, on one line: control characters, escape sequences and bidirectional
// overrides are shown as escapes, never sent to the terminal; bytes that are no UTF-8 become
// U+FFFD.
func Clean(s string) string { return clean(s, false) }

// CleanLines is Clean for text of many lines (what a command on another host printed):
// newlines and tabs are kept, everything else Clean escapes is escaped.
func CleanLines(s string) string { return clean(s, true) }

func clean(s string, lines bool) string {
	if isPlain(s, lines) {
		return s
	}
	var b strings.Builder
	for i, w := 0, 0; i < len(s); i += w {
		r, size := utf8.DecodeRuneInString(s[i:])
		w = size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case (r == '\n' || r == '\t') && lines:
			b.WriteRune(r)
		case r == '\n' || r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.Is(unicode.Bidi_Control, r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isPlain reports text that clean leaves as it is (printable ASCII, and newlines and tabs
// when lines), the common case.
func isPlain(s string, lines bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if lines && (c == '\n' || c == '\t') {
			continue
		}
		if c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}
