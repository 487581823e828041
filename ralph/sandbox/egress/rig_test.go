package egress

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// rig is the network of one sandbox on loopback: the proxy on a Unix socket in a temporary
// directory, the relay in front of it on 127.0.0.1, as the agent inside would reach them.
type rig struct {
	proxy  *Proxy
	socket string
	relay  string // the relay's host:port, what HTTPS_PROXY names inside the sandbox
	log    string

	mu      sync.Mutex
	refused []Refusal
}

// wait bounds every wait of these tests: a proxy that holds back data fails, never hangs.
const wait = 10 * time.Second

func startRig(t *testing.T, allow ...string) *rig {
	t.Helper()
	dir := t.TempDir()
	r := &rig{socket: filepath.Join(dir, "egress.sock"), log: filepath.Join(dir, "refusals.jsonl")}
	r.proxy = &Proxy{Allow: mustAllow(t, allow...), Log: r.log, Refused: func(x Refusal) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.refused = append(r.refused, x)
	}}
	ul, err := net.Listen("unix", r.socket)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- r.proxy.Serve(ul) }()
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.relay = tl.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	relayed := make(chan error, 1)
	go func() { relayed <- Relay(ctx, tl, r.socket) }()
	t.Cleanup(func() {
		cancel()
		if err := receive(t, relayed, "the relay's end"); err != nil {
			t.Errorf("Relay after its context ended: %v", err)
		}
		r.proxy.Close()
		if err := receive(t, served, "the proxy's end"); err != nil {
			t.Errorf("Serve after Close: %v", err)
		}
	})
	return r
}

func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(wait):
		t.Fatalf("no %s within %v", what, wait)
	}
	var zero T
	return zero
}

func (r *rig) refusals() []Refusal {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Refusal(nil), r.refused...)
}

// client is an HTTP client that goes through the relay, as an agent honouring HTTPS_PROXY
// and HTTP_PROXY does; tlsFrom, if set, is a TLS test server it trusts.
func (r *rig) client(tlsFrom *httptest.Server) *http.Client {
	tr := &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: r.relay})}
	if tlsFrom != nil {
		tr.TLSClientConfig = tlsFrom.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	}
	return &http.Client{Transport: tr, Timeout: wait}
}

// conn is a raw connection to the relay, for requests no client library sends.
func (r *rig) conn(t *testing.T) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.DialTimeout("tcp", r.relay, wait)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(wait))
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

// roundTrip writes a raw request on c and reads its response and body.
func roundTrip(t *testing.T, c net.Conn, br *bufio.Reader, method, raw string) (*http.Response, string) {
	t.Helper()
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		t.Fatalf("reading the answer to %q: %v", strings.SplitN(raw, "\r\n", 2)[0], err)
	}
	if method == http.MethodConnect && resp.StatusCode == http.StatusOK {
		return resp, "" // what follows is the tunnel's
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

// hostPort is a test server's address as an allowlist entry.
func hostPort(s *httptest.Server) string {
	return s.Listener.Addr().String()
}

// freePort is a port on 127.0.0.1 nothing listens on.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// hello is a destination that says hello, and what it was asked.
func hello(seen chan<- http.Header) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if seen != nil {
			seen <- r.Header.Clone()
		}
		fmt.Fprintf(w, "hello from %s", r.URL.Path)
	}
}
