package swarm

import (
	"strings"
	"testing"
)

// A host's reply is kept up to its bound; past it nothing more is kept, the command that writes
// it is ended, and the reply is known to be too large.
func TestCappedKeepsAReplyWithinItsBound(t *testing.T) {
	ended := 0
	c := &capped{max: 10, over: func() { ended++ }}
	for _, s := range []string{"abcd", "efgh", "ijkl", "mnop"} {
		if n, err := c.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if !c.full || c.buf.String() != "abcdefgh" || ended != 1 {
		t.Errorf("full %v, kept %q, ended %d times; want full, the first 8 bytes, ended once", c.full, c.buf.String(), ended)
	}
	small := &capped{max: 10}
	_, _ = small.Write([]byte(strings.Repeat("x", 10)))
	if small.full || small.buf.Len() != 10 {
		t.Errorf("a reply of exactly the bound: full %v, kept %d", small.full, small.buf.Len())
	}
}
