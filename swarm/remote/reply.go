package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
)

// What a host answers is read bounded: a host gone wrong (or hostile) that answers `ls` with
// hundreds of megabytes must not take this machine's memory with it.

// MaxReply is the most of a host's answer to one command that is read (its workers, its
// dashboard rows, who it is, its report, a worker's status): a host that says more is
// ended there and its answer refused.
const MaxReply = 16 << 20

// maxSaid is the most of what a host's command says on its standard error that is kept.
const maxSaid = 64 << 10

// TooLargeError is a host's answer that went past what is read of it.
type TooLargeError struct {
	Host string
	Max  int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("host %s answered with more than %d MB: not read", e.Host, e.Max>>20)
}

// Bounded keeps what is written to it up to a size. Past that it keeps nothing more, is
// Full, and calls over once (which ends the command that writes); writes never fail, so
// the writer is not left blocked on a pipe. What it keeps is kept as the pieces written, put
// together only when asked for: a buffer that doubles as it grows would hold two or three
// times the bound while a flooding host fills it.
type Bounded struct {
	mu     sync.Mutex
	pieces [][]byte
	size   int
	max    int
	full   bool
	over   func()
}

// NewBounded keeps up to max bytes; over (which may be nil) is called when more comes.
func NewBounded(max int, over func()) *Bounded { return &Bounded{max: max, over: over} }

func (b *Bounded) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.full {
		return len(p), nil
	}
	if b.size+len(p) > b.max {
		b.full = true
		if b.over != nil {
			b.over()
		}
		return len(p), nil
	}
	b.pieces = append(b.pieces, bytes.Clone(p))
	b.size += len(p)
	return len(p), nil
}

// Bytes is what was kept.
func (b *Bounded) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.pieces) > 1 {
		b.pieces = [][]byte{bytes.Join(b.pieces, nil)}
	}
	if len(b.pieces) == 0 {
		return nil
	}
	return b.pieces[0]
}

// Full says whether more was written than is kept.
func (b *Bounded) Full() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.full
}

// stopped is a command ended by its context: cut short by whoever ran it because its answer
// was too large (the connection is sound and kept), else past its time limit.
func (c *Conn) stopped(ctx context.Context) error {
	var large *TooLargeError
	if errors.As(context.Cause(ctx), &large) {
		return large
	}
	return c.timedOut()
}
