package remote

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// A host's answer is kept up to its bound; past it nothing more is kept, the command that
// writes it is ended, and the answer is known to be too large.
func TestBoundedKeepsAnAnswerWithinItsBound(t *testing.T) {
	ended := 0
	b := NewBounded(10, func() { ended++ })
	for _, s := range []string{"abcd", "efgh", "ijkl", "mnop"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if !b.Full() || string(b.Bytes()) != "abcdefgh" || ended != 1 {
		t.Errorf("full %v, kept %q, ended %d times; want full, the first 8 bytes, ended once", b.Full(), b.Bytes(), ended)
	}
	exact := NewBounded(10, nil)
	_, _ = exact.Write([]byte(strings.Repeat("x", 10)))
	if exact.Full() || len(exact.Bytes()) != 10 {
		t.Errorf("an answer of exactly the bound: full %v, kept %d", exact.Full(), len(exact.Bytes()))
	}
}

// A host that answers without end is ended once its answer passes MaxReply: Output says so
// at once (not at its time limit) and keeps the connection, which the next command uses.
func TestOutputRefusesAnAnswerPastItsBound(t *testing.T) {
	c := startSSHD(t).conn(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	out, err := c.Output(ctx, nil, "-c", "yes 0123456789abcdef")
	var large *TooLargeError
	if !errors.As(err, &large) || out != nil {
		t.Fatalf("Output of an endless answer = %d bytes, %v; want a *TooLargeError", len(out), err)
	}
	if !strings.Contains(err.Error(), "more than 16 MB") {
		t.Errorf("message %q", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("ended by the time limit after %s, not by the bound", time.Since(start))
	}
	if !c.masterUp() {
		t.Error("an answer too large ended the master connection")
	}
	if out, err := c.Output(ctx, nil, "-c", "echo after"); err != nil || string(out) != "after\n" {
		t.Errorf("the next command: %q, %v", out, err)
	}
}
