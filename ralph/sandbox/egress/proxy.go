package egress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"strconv"
	"sync"
	"time"
)

// The proxy's bounds: what one agent may hold of the process outside its sandbox.
const (
	// MaxHeaderBytes bounds a request's line and headers (net/http allows a few KiB over it
	// for its own reading); a longer request gets 431 Request Header Fields Too Large.
	MaxHeaderBytes = 64 << 10
	// DialTimeout bounds the connection to a destination; a destination that does not
	// answer gets the agent a 504, not a hang.
	DialTimeout = 10 * time.Second
	// MaxConns bounds the connections open at once; more wait to be accepted.
	MaxConns = 256
	// headerTimeout bounds the wait for a request's headers, idleTimeout a kept-alive
	// connection's wait for its next request. Nothing bounds a tunnel or a response: a
	// model's answer streams for as long as it takes.
	headerTimeout = 30 * time.Second
	idleTimeout   = 2 * time.Minute
)

// Proxy is the egress proxy: an HTTP proxy that forwards CONNECT tunnels and absolute-form
// http:// requests to the destinations Allow allows, and refuses every other with 403
// Forbidden. Set its fields before the first Serve; a Proxy serves any number of listeners
// until Close.
type Proxy struct {
	Allow Allowlist
	// Refused, if set, hears every refused connection, one at a time, from the
	// connection's goroutine. What net/http turns away before the proxy reads it (headers
	// over MaxHeaderBytes, a request that is not HTTP) is answered but not reported: it
	// names no host.
	Refused func(Refusal)
	// Log, if set, is the file every refusal is appended to as a JSON line, up to LogMax.
	// A log that cannot be written is skipped; Refused still hears every refusal.
	Log string

	once      sync.Once
	stop      context.CancelFunc // ends every request's context, upgraded connections' too
	server    *http.Server
	forwarder *httputil.ReverseProxy
	transport *http.Transport
	refusals  logSync

	mu      sync.Mutex
	closed  bool
	tunnels map[net.Conn]struct{}
}

func (p *Proxy) init() {
	p.once.Do(func() {
		quiet := log.New(io.Discard, "", 0) // the agent's terminal is no place for the proxy's errors
		var base context.Context
		base, p.stop = context.WithCancel(context.Background())
		p.server = &http.Server{Handler: http.HandlerFunc(p.serveHTTP), MaxHeaderBytes: MaxHeaderBytes,
			ReadHeaderTimeout: headerTimeout, IdleTimeout: idleTimeout, ErrorLog: quiet,
			BaseContext: func(net.Listener) context.Context { return base }}
		p.transport, p.forwarder = p.newForwarder(quiet)
		p.refusals.log.path = p.Log
		p.tunnels = map[net.Conn]struct{}{}
	})
}

// Serve accepts connections on l until Close, and returns nil then; any other end of l is
// returned as its error.
func (p *Proxy) Serve(l net.Listener) error {
	p.init()
	err := p.server.Serve(newLimitListener(l, MaxConns))
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Close stops the proxy: its listeners, and every connection through it, tunnels and
// streaming responses alike.
func (p *Proxy) Close() error {
	p.init()
	p.mu.Lock()
	p.closed = true
	tunnels := p.tunnels
	p.tunnels = map[net.Conn]struct{}{}
	p.mu.Unlock()
	p.stop()
	err := p.server.Close()
	for c := range tunnels {
		c.Close()
	}
	p.transport.CloseIdleConnections()
	return err
}

func (p *Proxy) serveHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodConnect:
		p.connect(w, r)
	case r.URL.IsAbs() && r.URL.Scheme == "http":
		p.forward(w, r)
	default:
		p.refuse(w, r.Host, 0, WhyNotProxied, http.StatusBadRequest,
			"this is the sandbox's egress proxy: it forwards CONNECT and absolute http:// requests only")
	}
}

// destination reads a request's target as host and port, the host in the allowlist's
// canonical form: the form that is checked is the form that is dialled. A target without a
// port gets defaultPort, or is not a target when that is 0 (CONNECT names its port).
func destination(hostport string, defaultPort int) (string, int, bool) {
	host, portText, err := net.SplitHostPort(hostport)
	if err != nil {
		if defaultPort == 0 {
			return "", 0, false
		}
		host, portText = hostport, strconv.Itoa(defaultPort)
	}
	port, err := parsePort(portText)
	if err != nil {
		return "", 0, false
	}
	h, _, ok := canonicalHost(host)
	return h, port, ok
}

// check is the allowlist's verdict on a target, said to the agent and reported when it
// refuses.
func (p *Proxy) check(w http.ResponseWriter, target string, defaultPort int) (string, int, bool) {
	host, port, ok := destination(target, defaultPort)
	switch {
	case !ok:
		p.refuse(w, target, 0, WhyBadTarget, http.StatusBadRequest,
			fmt.Sprintf("%q is not a host and port", printable(target)))
	case !p.Allow.Allows(host, port):
		p.refuse(w, host, port, WhyNotAllowed, http.StatusForbidden,
			fmt.Sprintf("%s is not in the sandbox's allowlist", net.JoinHostPort(host, strconv.Itoa(port))))
	default:
		return host, port, true
	}
	return "", 0, false
}

// refuse answers a refused request with code and a one-line body, and reports it.
func (p *Proxy) refuse(w http.ResponseWriter, host string, port int, why string, code int, body string) {
	r := Refusal{Time: time.Now().UTC(), Host: printable(host), Port: port, Why: why}
	p.refusals.mu.Lock()
	p.refusals.log.append(r)
	if p.Refused != nil {
		p.Refused(r)
	}
	p.refusals.mu.Unlock()
	http.Error(w, body, code)
}

// connect opens a tunnel to an allowed destination: the destination is dialled first, so a
// destination that cannot be reached is an error status the agent can read, and only then
// is the agent told 200 and the bytes carried both ways.
func (p *Proxy) connect(w http.ResponseWriter, r *http.Request) {
	host, port, ok := p.check(w, r.Host, 0)
	if !ok {
		return
	}
	up, err := dial(r.Context(), "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		unreachable(w, r.Host, err)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "this connection cannot carry a tunnel", http.StatusInternalServerError)
		return
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if !p.track(conn, up) {
		return
	}
	defer p.untrack(conn, up)
	conn.SetDeadline(time.Time{})
	if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
		conn.Close()
		up.Close()
		return
	}
	var src io.Reader = conn
	if n := rw.Reader.Buffered(); n > 0 { // what the agent sent before it heard the 200
		src = io.MultiReader(io.LimitReader(rw.Reader, int64(n)), conn)
	}
	pipe(conn, src, up)
}

// track records a tunnel's connections so Close can end them; after Close it closes them
// instead and says so.
func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.tunnels[c] = struct{}{}
	}
	return true
}

func (p *Proxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		delete(p.tunnels, c)
	}
}
