package egress

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// A connection over the bound waits to be accepted until one that is open closes.
func TestLimitListener(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := newLimitListener(inner, 1)
	defer l.Close()
	accepted := make(chan net.Conn, 2)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	for range 2 {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	first := receive(t, accepted, "the first connection")
	select {
	case <-accepted:
		t.Fatal("a second connection was accepted while the first was open")
	case <-time.After(50 * time.Millisecond):
	}
	first.Close()
	first.Close() // a second Close gives back no second slot
	receive(t, accepted, "the second connection, once the first closed").Close()
}

func TestLimitListenerCloseWhileFull(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := newLimitListener(inner, 1)
	l.slots <- struct{}{} // full
	ended := make(chan error, 1)
	go func() {
		_, err := l.Accept()
		ended <- err
	}()
	l.Close()
	if err := receive(t, ended, "Accept's end"); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept on a full listener closed: %v, want net.ErrClosed", err)
	}
}

func TestUnreachableStatus(t *testing.T) {
	for _, c := range []struct {
		err  error
		code int
	}{
		{errors.New("connection refused"), http.StatusBadGateway},
		{context.DeadlineExceeded, http.StatusGatewayTimeout},
		{&net.OpError{Op: "dial", Err: timeoutError{}}, http.StatusGatewayTimeout},
	} {
		w := httptest.NewRecorder()
		unreachable(w, "api.example.com:443", c.err)
		if w.Code != c.code {
			t.Errorf("%v: %d, want %d", c.err, w.Code, c.code)
		}
	}
}

type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }
