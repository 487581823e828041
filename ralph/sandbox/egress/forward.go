package egress

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"strconv"
	"time"
)

// forward passes an absolute-form http:// request to its allowed destination and streams
// the answer back. Each request is checked on its own host, so a kept-alive connection
// that asks for another host is checked again; a redirect is passed to the agent as it is,
// never followed, so it leads nowhere the allowlist does not.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request) {
	host, port, ok := p.check(w, r.URL.Host, 80)
	if !ok {
		return
	}
	r.URL.Host = net.JoinHostPort(host, strconv.Itoa(port)) // dialled as checked
	p.forwarder.ServeHTTP(w, r)
}

// newForwarder is the transport to destinations and the reverse proxy over it. The reverse
// proxy drops the hop-by-hop headers both ways (Connection and what it names,
// Proxy-Authorization, Keep-Alive, TE, Upgrade outside an upgrade, ...) and adds no
// X-Forwarded-For; it flushes every write at once, so a model's server-sent events reach
// the agent as they come. The transport goes to destinations directly, whatever proxy the
// environment names, and leaves bodies as they are encoded.
func (p *Proxy) newForwarder(quiet *log.Logger) (*http.Transport, *httputil.ReverseProxy) {
	t := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, ok := destination(addr, 0)
			if !ok || !p.Allow.Allows(host, port) { // never reached: forward checked it
				return nil, fmt.Errorf("%s is not in the sandbox's allowlist", addr)
			}
			return dial(ctx, network, addr)
		},
		DisableCompression:     true,
		MaxIdleConns:           32,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 1 << 20,
	}
	rp := &httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) {},
		Transport:     t,
		FlushInterval: -1,
		ErrorLog:      quiet,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() == nil { // an agent that left needs no answer
				unreachable(w, r.URL.Host, err)
			}
		},
	}
	return t, rp
}

// dial connects to a destination within DialTimeout.
func dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: DialTimeout}
	return d.DialContext(ctx, network, addr)
}

// unreachable tells the agent that an allowed destination did not answer: 504 when it timed
// out, 502 otherwise.
func unreachable(w http.ResponseWriter, target string, err error) {
	code := http.StatusBadGateway
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		code = http.StatusGatewayTimeout
	}
	http.Error(w, fmt.Sprintf("the sandbox's egress proxy cannot reach %s: %v", printable(target), err), code)
}
