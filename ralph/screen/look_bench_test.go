package screen

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// What one look at a busy screen costs: the capture of a pane whose command floods it (2000
// lines of scrollback and the screen), read the way a loop reads each capture.
func BenchmarkLookAtBusyScreen(b *testing.B) {
	var sb strings.Builder
	for i := range 2050 {
		fmt.Fprintf(&sb, "flood %d building module with verbose output enabled ........................\n", i)
	}
	text := sb.String()
	done := NewDoneMatcher(regexp.MustCompile(`<promise>COMPLETE</promise>`), "work, then print <promise>COMPLETE</promise>")
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		lines := Lines(text)
		_ = done.Count(lines)
		_, _ = APIError(lines)
		_, _ = UsageLimit(lines)
		_ = ActivityHashOf(lines)
		_ = SubstantiveHashOf(lines)
	}
}
