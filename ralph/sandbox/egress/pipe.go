package egress

import (
	"errors"
	"io"
	"net"
	"sync"
)

// closeWriter is a connection that can end one direction and keep reading the other (TCP's
// and Unix sockets' shutdown): a client that sends its request and half-closes still reads
// the whole answer.
type closeWriter interface {
	CloseWrite() error
}

// pipe carries bytes both ways between a and b until both directions have ended, then
// closes both. aSrc is what is read from a (a itself, or a reader holding bytes a sent
// before the tunnel was up). The end of one direction is passed on as a half-close; an error
// in either direction ends both, so neither copy waits on a peer that is gone.
func pipe(a net.Conn, aSrc io.Reader, b net.Conn) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		copyHalf(b, aSrc, a)
	}()
	copyHalf(a, b, b)
	wg.Wait()
	a.Close()
	b.Close()
}

// copyHalf copies src into dst, then half-closes dst; on an error, or where dst cannot be
// half-closed, it closes both dst and srcConn.
func copyHalf(dst net.Conn, src io.Reader, srcConn net.Conn) {
	_, err := io.Copy(dst, src)
	if err == nil {
		if cw, ok := dst.(closeWriter); ok && cw.CloseWrite() == nil {
			return
		}
	}
	dst.Close()
	srcConn.Close()
}

// limitListener holds back Accept while max connections are open: the agent cannot make the
// process outside its sandbox run out of file descriptors.
type limitListener struct {
	net.Listener
	slots  chan struct{}
	closed chan struct{}
	once   sync.Once
}

func newLimitListener(l net.Listener, max int) *limitListener {
	return &limitListener{Listener: l, slots: make(chan struct{}, max), closed: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.closed:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, release: sync.OnceFunc(func() { <-l.slots })}, nil
}

func (l *limitListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// limitConn gives its slot back when closed, and keeps the half-close of the connection
// it wraps.
type limitConn struct {
	net.Conn
	release func()
}

func (c *limitConn) Close() error {
	c.release()
	return c.Conn.Close()
}

func (c *limitConn) CloseWrite() error {
	if cw, ok := c.Conn.(closeWriter); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}
