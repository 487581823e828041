package egress

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"
)

// startRelay runs Relay on 127.0.0.1:0 in front of socket; its error arrives on the channel.
func startRelay(t *testing.T, ctx context.Context, socket string) (string, <-chan error) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- Relay(ctx, l, socket) }()
	return l.Addr().String(), done
}

// expectGone connects through the relay to a proxy that is not there: the connection is
// closed, and the relay ends with ErrProxyGone.
func expectGone(t *testing.T, addr string, done <-chan error) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = receive(t, done, "the relay's end")
	if !errors.Is(err, ErrProxyGone) {
		t.Fatalf("Relay = %v, want ErrProxyGone", err)
	}
	c.SetReadDeadline(time.Now().Add(wait))
	if n, rerr := c.Read(make([]byte, 1)); rerr != io.EOF {
		t.Errorf("the agent's connection read %d bytes (%v) from a proxy that is gone, want EOF", n, rerr)
	}
	if c2, err := net.Dial("tcp", addr); err == nil {
		c2.Close()
		t.Error("the relay still accepts connections after it ended")
	}
}

func TestRelayNoSocket(t *testing.T) {
	addr, done := startRelay(t, context.Background(), filepath.Join(t.TempDir(), "egress.sock"))
	expectGone(t, addr, done)
}

// A proxy that was killed leaves its socket file behind, with nobody listening on it.
func TestRelaySocketLeftBehind(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "egress.sock")
	l, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	addr, done := startRelay(t, context.Background(), socket)
	expectGone(t, addr, done)
}

// A proxy that goes away while the agent works: the connection that finds it gone ends the
// relay.
func TestRelayProxyClosed(t *testing.T) {
	dest := httptest.NewServer(hello(nil))
	defer dest.Close()
	socket := filepath.Join(t.TempDir(), "egress.sock")
	ul, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Allow: mustAllow(t, hostPort(dest))}
	served := make(chan error, 1)
	go func() { served <- p.Serve(ul) }()
	addr, done := startRelay(t, context.Background(), socket)
	client := (&rig{relay: addr}).client(nil)
	resp, err := client.Get(dest.URL + "/before")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "hello from /before" {
		t.Fatalf("before the proxy closed: %q", body)
	}
	client.CloseIdleConnections()
	p.Close()
	if err := receive(t, served, "the proxy's end"); err != nil {
		t.Errorf("Serve: %v", err)
	}
	expectGone(t, addr, done)
}

func TestRelayContextEnds(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "egress.sock")
	ul, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	heard := make(chan struct{}, 1)
	go func() { // a proxy that holds every connection open
		for {
			c, err := ul.Accept()
			if err != nil {
				return
			}
			go func() {
				if _, err := io.ReadFull(c, make([]byte, 4)); err == nil {
					heard <- struct{}{}
				}
				io.Copy(io.Discard, c)
				c.Close()
			}()
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	addr, done := startRelay(t, ctx, socket)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("held")); err != nil {
		t.Fatal(err)
	}
	receive(t, heard, "the agent's bytes at the proxy")
	cancel()
	if err := receive(t, done, "the relay's end"); err != nil {
		t.Errorf("Relay after its context ended = %v, want nil", err)
	}
	c.SetReadDeadline(time.Now().Add(wait))
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("a connection the relay carried is still open after it ended: %v", err)
	}
}
