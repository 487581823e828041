package egress

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

func TestConnectAllowed(t *testing.T) {
	dest := httptest.NewTLSServer(hello(nil))
	defer dest.Close()
	r := startRig(t, hostPort(dest))
	resp, err := r.client(dest).Get(dest.URL + "/secure")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "hello from /secure" {
		t.Errorf("through the tunnel: %d %q", resp.StatusCode, body)
	}
	if got := r.refusals(); len(got) != 0 {
		t.Errorf("refused %+v", got)
	}
}

func TestConnectRefusedIsLogged(t *testing.T) {
	allowed := httptest.NewServer(hello(nil))
	defer allowed.Close()
	other := httptest.NewServer(hello(nil)) // listening: a proxy that forwarded it would get an answer
	defer other.Close()
	r := startRig(t, hostPort(allowed))
	c, br := r.conn(t)
	target := hostPort(other)
	resp, body := roundTrip(t, c, br, http.MethodConnect, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n")
	if resp.StatusCode != http.StatusForbidden || body != target+" is not in the sandbox's allowlist\n" {
		t.Errorf("CONNECT %s: %d %q", target, resp.StatusCode, body)
	}
	_, port, _ := net.SplitHostPort(target)
	got := r.refusals()
	if len(got) != 1 || got[0].Host != "127.0.0.1" || strconv.Itoa(got[0].Port) != port || got[0].Why != WhyNotAllowed {
		t.Fatalf("refusals heard: %+v", got)
	}
	logged, total, err := ReadRefusals(r.log, 10)
	if err != nil || total != 1 || logged[0] != got[0] {
		t.Errorf("logged %+v (%d, %v), want %+v", logged, total, err, got[0])
	}
}

func TestConnectBadTargets(t *testing.T) {
	r := startRig(t, "example.com:443")
	for _, target := range []string{"example.com", "example.com:0", "example.com:https", "exa\x01mple.com:443"} {
		c, br := r.conn(t)
		resp, _ := roundTrip(t, c, br, http.MethodConnect, "CONNECT "+target+" HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("CONNECT %q: %d, want 400", target, resp.StatusCode)
		}
	}
	for _, x := range r.refusals() {
		if x.Why != WhyBadTarget && x.Why != "" {
			t.Errorf("refusal %+v, want %q", x, WhyBadTarget)
		}
		if strings.ContainsAny(x.Host, "\x00\x01") {
			t.Errorf("refusal host %q is not made printable", x.Host)
		}
	}
}

// A tunnel passes on the agent's half-close: a destination that answers only once it has
// read everything still gets its answer back to the agent.
func TestConnectHalfClose(t *testing.T) {
	dest, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer dest.Close()
	go func() {
		c, err := dest.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		n, _ := io.Copy(io.Discard, c)
		io.WriteString(c, "read "+strconv.FormatInt(n, 10)+" bytes")
	}()
	target := dest.Addr().String()
	r := startRig(t, target)
	c, br := r.conn(t)
	resp, _ := roundTrip(t, c, br, http.MethodConnect, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n")
	if resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %d", resp.StatusCode)
	}
	if _, err := c.Write([]byte(strings.Repeat("x", 200000))); err != nil {
		t.Fatal(err)
	}
	if err := c.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	answer, err := io.ReadAll(br)
	if err != nil || string(answer) != "read 200000 bytes" {
		t.Errorf("after the half-close: %q, %v", answer, err)
	}
}

func TestConnectUnreachable(t *testing.T) {
	target := freePort(t)
	r := startRig(t, target)
	c, br := r.conn(t)
	resp, body := roundTrip(t, c, br, http.MethodConnect, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n")
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "cannot reach "+target) {
		t.Errorf("CONNECT to nothing: %d %q", resp.StatusCode, body)
	}
	if got := r.refusals(); len(got) != 0 {
		t.Errorf("an allowed host that does not answer is not a refusal: %+v", got)
	}
}

// Close ends the tunnels that are open, not only the listener.
func TestCloseEndsTunnels(t *testing.T) {
	dest, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer dest.Close()
	go func() {
		c, err := dest.Accept()
		if err == nil {
			io.Copy(io.Discard, c) // holds the tunnel open until it is ended
			c.Close()
		}
	}()
	target := dest.Addr().String()
	r := startRig(t, target)
	c, br := r.conn(t)
	if resp, _ := roundTrip(t, c, br, http.MethodConnect, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n"); resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %d", resp.StatusCode)
	}
	r.proxy.Close()
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("reading a tunnel after Close: %v, want EOF", err)
	}
}
