package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall"
	"time"
)

// ErrProxyGone is Relay's error when the proxy's socket no longer answers: the agent has lost
// its way out, and its iteration ends as a failure rather than running on without a network.
var ErrProxyGone = errors.New("the sandbox's egress proxy is gone")

// proxyRetries and proxyRetryWait bound how long a busy proxy (its socket's queue full) is
// waited for before it counts as gone.
const (
	proxyRetries   = 5
	proxyRetryWait = 100 * time.Millisecond
)

// Relay is the sandbox's side of the proxy. Inside the sandbox the network is loopback alone;
// Relay accepts the agent's connections on l (the 127.0.0.1 port HTTPS_PROXY names) and
// carries each to a new connection to the proxy's Unix socket, bound into the sandbox at
// socket. It returns when ctx ends (nil), when l fails, or with an error wrapping
// ErrProxyGone when the socket cannot be reached. It closes l, and every connection it
// carries, before it returns.
func Relay(parent context.Context, l net.Listener, socket string) error {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	var conns sync.WaitGroup
	var mu sync.Mutex
	open := map[net.Conn]struct{}{}
	go func() {
		<-ctx.Done()
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for c := range open {
			c.Close()
		}
	}()
	for {
		c, err := l.Accept()
		if err != nil {
			cancel(nil)
			conns.Wait()
			return relayEnd(parent, ctx, err)
		}
		conns.Add(1)
		go func() {
			defer conns.Done()
			up, err := dialProxy(ctx, socket)
			if err != nil {
				c.Close()
				cancel(fmt.Errorf("%w: %v", ErrProxyGone, err))
				return
			}
			mu.Lock()
			if ctx.Err() != nil { // the relay is ending: nothing more is carried
				mu.Unlock()
				c.Close()
				up.Close()
				return
			}
			open[c], open[up] = struct{}{}, struct{}{}
			mu.Unlock()
			pipe(c, c, up)
			mu.Lock()
			delete(open, c)
			delete(open, up)
			mu.Unlock()
		}()
	}
}

// relayEnd is Relay's error once its listener has stopped: the proxy gone, nil for the
// caller's context's end, or else the listener's own failure.
func relayEnd(parent, ctx context.Context, acceptErr error) error {
	if cause := context.Cause(ctx); errors.Is(cause, ErrProxyGone) {
		return cause
	}
	if parent.Err() != nil {
		return nil
	}
	return fmt.Errorf("sandbox relay: %w", acceptErr)
}

// dialProxy connects to the proxy's socket. A socket that is not there or that nobody
// listens on is a proxy gone at once; one whose queue is full is tried again for a moment.
func dialProxy(ctx context.Context, socket string) (net.Conn, error) {
	var d net.Dialer
	for try := 0; ; try++ {
		c, err := d.DialContext(ctx, "unix", socket)
		if err == nil || try == proxyRetries || !errors.Is(err, syscall.EAGAIN) {
			return c, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(proxyRetryWait):
		}
	}
}
