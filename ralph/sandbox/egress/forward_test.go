package egress

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Each request on a kept-alive connection is checked on its own host, whatever its Host
// header says, and a refusal does not end the connection.
func TestAbsoluteFormCheckedPerRequest(t *testing.T) {
	allowed := httptest.NewServer(hello(nil))
	defer allowed.Close()
	other := httptest.NewServer(hello(nil))
	defer other.Close()
	r := startRig(t, hostPort(allowed))
	c, br := r.conn(t)
	a, o := hostPort(allowed), hostPort(other)
	steps := []struct {
		target, host string
		code         int
		body         string
	}{
		{a, a, 200, "hello from /one"},
		{o, a, 403, o + " is not in the sandbox's allowlist\n"},
		{a, o, 200, "hello from /three"},
	}
	for i, s := range steps {
		path := []string{"/one", "/two", "/three"}[i]
		resp, body := roundTrip(t, c, br, "GET", "GET http://"+s.target+path+" HTTP/1.1\r\nHost: "+s.host+"\r\n\r\n")
		if resp.StatusCode != s.code || body != s.body {
			t.Errorf("GET http://%s%s: %d %q, want %d %q", s.target, path, resp.StatusCode, body, s.code, s.body)
		}
	}
	got := r.refusals()
	if len(got) != 1 || got[0].Host != "127.0.0.1" || got[0].Why != WhyNotAllowed {
		t.Errorf("refusals: %+v", got)
	}
}

func TestAbsoluteFormDropsHopByHopHeaders(t *testing.T) {
	seen := make(chan http.Header, 1)
	dest := httptest.NewServer(hello(seen))
	defer dest.Close()
	r := startRig(t, hostPort(dest))
	c, br := r.conn(t)
	resp, _ := roundTrip(t, c, br, "GET", "GET http://"+hostPort(dest)+"/ HTTP/1.1\r\nHost: "+hostPort(dest)+"\r\n"+
		"Connection: keep-alive, X-Secret\r\nX-Secret: 1\r\nProxy-Authorization: Basic c2VjcmV0\r\n"+
		"Proxy-Connection: keep-alive\r\nX-Kept: yes\r\n\r\n")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	h := receive(t, seen, "request at the destination")
	for _, name := range []string{"X-Secret", "Proxy-Authorization", "Proxy-Connection", "X-Forwarded-For"} {
		if v := h.Get(name); v != "" {
			t.Errorf("the destination was sent %s: %q", name, v)
		}
	}
	if h.Get("X-Kept") != "yes" {
		t.Errorf("an end-to-end header was lost: %v", h)
	}
}

// A redirect to another host is the agent's to follow, and the proxy refuses it then.
func TestRedirectIsNotFollowed(t *testing.T) {
	other := httptest.NewServer(hello(nil))
	defer other.Close()
	dest := httptest.NewServer(http.RedirectHandler(other.URL+"/elsewhere", http.StatusFound))
	defer dest.Close()
	r := startRig(t, hostPort(dest))
	resp, err := r.client(nil).Get(dest.URL + "/away")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "not in the sandbox's allowlist") {
		t.Errorf("following the redirect: %d %q", resp.StatusCode, body)
	}
	if got := r.refusals(); len(got) != 1 || got[0].Why != WhyNotAllowed {
		t.Errorf("refusals: %+v", got)
	}
}

// sse is a destination that streams one event, waits for the test to have read it, then
// sends the second and ends: a proxy that gathers the response before passing it on holds
// back the first event for good.
func sse(release <-chan struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: message_start\ndata: {\"n\":1}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, "event: message_stop\ndata: {\"n\":2}\n\n")
	}
}

func TestServerSentEventsStream(t *testing.T) {
	for _, tunnel := range []bool{false, true} {
		name := map[bool]string{false: "absolute-form", true: "CONNECT"}[tunnel]
		t.Run(name, func(t *testing.T) {
			release := make(chan struct{})
			dest := httptest.NewUnstartedServer(sse(release))
			var tlsFrom *httptest.Server
			if tunnel {
				dest.StartTLS()
				tlsFrom = dest
			} else {
				dest.Start()
			}
			defer dest.Close()
			defer func() {
				select {
				case <-release:
				default:
					close(release)
				}
			}()
			r := startRig(t, hostPort(dest))
			resp, err := r.client(tlsFrom).Get(dest.URL + "/v1/messages")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			first := make(chan string, 1)
			go func() {
				var ev strings.Builder
				for !strings.HasSuffix(ev.String(), "\n\n") {
					line, err := br.ReadString('\n')
					ev.WriteString(line)
					if err != nil {
						break
					}
				}
				first <- ev.String()
			}()
			if got := receive(t, first, "first event while the response goes on"); got != "event: message_start\ndata: {\"n\":1}\n\n" {
				t.Fatalf("first event: %q", got)
			}
			close(release)
			rest, err := io.ReadAll(br)
			if err != nil || string(rest) != "event: message_stop\ndata: {\"n\":2}\n\n" {
				t.Errorf("the rest: %q, %v", rest, err)
			}
		})
	}
}

func TestOversizedHeadersRefused(t *testing.T) {
	dest := httptest.NewServer(hello(nil))
	defer dest.Close()
	r := startRig(t, hostPort(dest))
	c, br := r.conn(t)
	go io.WriteString(c, "GET http://"+hostPort(dest)+"/ HTTP/1.1\r\nHost: "+hostPort(dest)+"\r\n"+
		"X-Big: "+strings.Repeat("b", 2*MaxHeaderBytes)+"\r\n\r\n")
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("%d KiB of headers: %d, want 431", 2*MaxHeaderBytes>>10, resp.StatusCode)
	}

	c2, br2 := r.conn(t)
	resp, _ = roundTrip(t, c2, br2, "GET", "GET http://"+hostPort(dest)+"/ HTTP/1.1\r\nHost: "+hostPort(dest)+"\r\n"+
		"X-Fits: "+strings.Repeat("f", MaxHeaderBytes-1024)+"\r\n\r\n")
	if resp.StatusCode != 200 {
		t.Errorf("headers just under the bound: %d, want 200", resp.StatusCode)
	}
}

func TestNotAProxyRequest(t *testing.T) {
	r := startRig(t, "example.com")
	for _, raw := range []string{
		"GET /index.html HTTP/1.1\r\nHost: example.com\r\n\r\n",
		"GET https://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n",
	} {
		c, br := r.conn(t)
		resp, body := roundTrip(t, c, br, "GET", raw)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "egress proxy") {
			t.Errorf("%q: %d %q", strings.SplitN(raw, "\r\n", 2)[0], resp.StatusCode, body)
		}
	}
	got := r.refusals()
	if len(got) != 2 || got[0].Why != WhyNotProxied || got[0].Host != "example.com" {
		t.Errorf("refusals: %+v", got)
	}
}
