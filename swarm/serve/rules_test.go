package serve

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

var tlsState tls.ConnectionState

func TestACookiePostMustBeSameOrigin(t *testing.T) {
	for _, c := range []struct {
		name    string
		headers []string
		want    int
	}{
		{"no origin, no fetch site", nil, http.StatusForbidden},
		{"another site's origin", []string{"Origin", "https://evil.example"}, http.StatusForbidden},
		{"the null origin", []string{"Origin", "null"}, http.StatusForbidden},
		{"cross-site fetch", []string{"Sec-Fetch-Site", "cross-site"}, http.StatusForbidden},
		{"same-site is not same-origin", []string{"Sec-Fetch-Site", "same-site"}, http.StatusForbidden},
		{"its own origin", []string{"Origin", "http://example.com"}, http.StatusOK},
		{"a same-origin fetch", []string{"Sec-Fetch-Site", "same-origin"}, http.StatusOK},
	} {
		ts := newTestServer(false)
		w := ts.do("POST", "/api/v1/workers/w1/pause", "", cookie(testToken, c.headers...))
		if w.Code != c.want {
			t.Errorf("%s: %d %q, want %d", c.name, w.Code, w.Body, c.want)
		}
		if (c.want == http.StatusOK) != (len(ts.b.did) == 1) {
			t.Errorf("%s: did %v", c.name, ts.b.did)
		}
	}
}

func TestSameOrigin(t *testing.T) {
	h := http.Header{"Origin": {"https://box:8717"}}
	if !sameOrigin(h, "box:8717", true) || sameOrigin(h, "box:8717", false) || sameOrigin(h, "box:9", true) {
		t.Error("an origin is its scheme, host and port")
	}
}

func TestABearerPostNeedsNoOrigin(t *testing.T) {
	ts := newTestServer(false)
	w := ts.do("POST", "/api/v1/workers/w1@box/pause", "", bearer(testToken))
	if w.Code != http.StatusOK || strings.TrimSpace(w.Body.String()) != `{"ok":true,"output":"did pause w1@box"}` {
		t.Errorf("bearer pause: %d %q", w.Code, w.Body)
	}
}

func TestReadOnlyRefusesEveryAction(t *testing.T) {
	ts := newTestServer(true)
	for _, a := range []string{"pause", "resume", "kill", "land", "send", "answer"} {
		w := ts.do("POST", "/api/v1/workers/w1/"+a, `{"line":"x","answer":"yes"}`, bearer(testToken))
		if w.Code != http.StatusForbidden || !strings.Contains(errorOf(t, w), "read-only") {
			t.Errorf("%s read-only: %d %q", a, w.Code, w.Body)
		}
	}
	if len(ts.b.did) > 0 {
		t.Errorf("read-only did %v", ts.b.did)
	}
	w := ts.do("GET", "/api/v1/server", "", bearer(testToken))
	if !strings.Contains(w.Body.String(), `"read_only":true`) {
		t.Errorf("server info %q: read_only not said", w.Body)
	}
}

func TestEveryResponseHasTheSecurityHeaders(t *testing.T) {
	ts := newTestServer(false)
	for _, w := range []interface{ Header() http.Header }{
		ts.do("GET", "/api/v1/workers", "", nil),
		ts.do("GET", "/api/v1/workers", "", bearer(testToken)),
		ts.do("GET", "/login?token="+testToken, "", nil),
		ts.do("GET", "/", "", bearer(testToken)),
	} {
		for k, v := range securityHeaders {
			if got := w.Header().Get(k); got != v {
				t.Errorf("%s: %q, want %q", k, got, v)
			}
		}
	}
	if !strings.Contains(securityHeaders["Content-Security-Policy"], "frame-ancestors 'none'") {
		t.Error("the page may be framed")
	}
}

func TestBodiesAreBoundedAndChecked(t *testing.T) {
	for _, c := range []struct {
		action, body string
		want         int
	}{
		{"send", `{"line":"run the tests"}`, http.StatusOK},
		{"send", `{"line":"-rf starts with a dash"}`, http.StatusOK},
		{"send", `{"line":"two\nlines"}`, http.StatusBadRequest},
		{"send", `{"line":"a\u001b[2J"}`, http.StatusBadRequest},
		{"send", `{"line":""}`, http.StatusBadRequest},
		{"send", `{}`, http.StatusBadRequest},
		{"send", ``, http.StatusBadRequest},
		{"send", `{"line":"x","extra":1}`, http.StatusBadRequest},
		{"send", `{"line":"` + strings.Repeat("x", maxLine+1) + `"}`, http.StatusBadRequest},
		{"send", `{"line":"` + strings.Repeat("x", maxBody) + `"}`, http.StatusRequestEntityTooLarge},
		{"answer", `{"answer":"yes"}`, http.StatusOK},
		{"answer", `{"answer":"no","message":"use the other file"}`, http.StatusOK},
		{"answer", `{"answer":"maybe"}`, http.StatusBadRequest},
		{"answer", `{"answer":"no","message":"a\nb"}`, http.StatusBadRequest},
		{"pause", ``, http.StatusOK},
		{"pause", `{}`, http.StatusOK},
		{"pause", `{"x":1}`, http.StatusBadRequest},
		{"pause", `not json`, http.StatusBadRequest},
	} {
		ts := newTestServer(false)
		w := ts.do("POST", "/api/v1/workers/w1/"+c.action, c.body, bearer(testToken))
		if w.Code != c.want {
			t.Errorf("%s %.60q: %d %q, want %d", c.action, c.body, w.Code, w.Body, c.want)
		}
		if (c.want == http.StatusOK) != (len(ts.b.did) == 1) {
			t.Errorf("%s %.60q: did %v", c.action, c.body, ts.b.did)
		}
	}
}

func TestNamesAreChecked(t *testing.T) {
	ts := newTestServer(false)
	for _, name := range []string{"-all", "a%20b", "w1@", "@box", "a@b@c", strings.Repeat("x", 70), "%2e%2e"} {
		if w := ts.do("GET", "/api/v1/workers/"+name, "", bearer(testToken)); w.Code != http.StatusBadRequest && w.Code != http.StatusNotFound {
			t.Errorf("name %q: %d %q", name, w.Code, w.Body)
		}
	}
	if w := ts.do("GET", "/api/v1/workers/w1@box", "", bearer(testToken)); w.Code != http.StatusOK {
		t.Errorf("w1@box: %d %q", w.Code, w.Body)
	}
}

func TestTheBackendsErrorsKeepTheirStatus(t *testing.T) {
	ts := newTestServer(false)
	w := ts.do("GET", "/api/v1/workers/gone", "", bearer(testToken))
	if w.Code != http.StatusNotFound || errorOf(t, w) != "no worker named 'gone'" {
		t.Errorf("gone: %d %q", w.Code, w.Body)
	}
}

func TestQueryParameters(t *testing.T) {
	ts := newTestServer(false)
	for target, want := range map[string]int{
		"/api/v1/workers/w1/screen":                     http.StatusOK,
		"/api/v1/workers/w1/screen?lines=5&colour=html": http.StatusOK,
		"/api/v1/workers/w1/screen?lines=0":             http.StatusBadRequest,
		"/api/v1/workers/w1/screen?lines=99999":         http.StatusBadRequest,
		"/api/v1/workers/w1/screen?colour=ansi":         http.StatusBadRequest,
		"/api/v1/events?after=3,box:4&kind=loop":        http.StatusOK,
		"/api/v1/events?worker=a%0Ab":                   http.StatusBadRequest,
		"/api/v1/report?since=12h":                      http.StatusOK,
	} {
		if w := ts.do("GET", target, "", bearer(testToken)); w.Code != want {
			t.Errorf("%s: %d %q, want %d", target, w.Code, w.Body, want)
		}
	}
	w := ts.do("GET", "/api/v1/events?after=3,box:4&after=gpu:1", "", bearer(testToken))
	if !strings.Contains(w.Body.String(), `"After":["3","box:4","gpu:1"]`) {
		t.Errorf("after split at commas: %q", w.Body)
	}
}

func TestStreamAndPageAreNotFoundUntilGiven(t *testing.T) {
	ts := newTestServer(false)
	for _, target := range []string{"/", "/static/x.js", "/api/v1/events/stream"} {
		if w := ts.do("GET", target, "", bearer(testToken)); w.Code != http.StatusNotFound {
			t.Errorf("%s: %d", target, w.Code)
		}
	}
	ts.cfg.Web = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("page " + r.URL.Path)) })
	ts.cfg.Stream = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("stream")) })
	ts.Server = New(ts.cfg)
	for target, want := range map[string]string{"/": "page /", "/static/x.js": "page /static/x.js", "/api/v1/events/stream": "stream"} {
		if w := ts.do("GET", target, "", bearer(testToken)); w.Body.String() != want {
			t.Errorf("%s: %q, want %q", target, w.Body, want)
		}
	}
}

func TestLimiterForgetsTheStalest(t *testing.T) {
	l := newLimiter(2, time.Minute)
	t0 := time.Unix(0, 0)
	for i := range maxAddrs + 10 {
		l.fail(fmt.Sprint("192.0.2.", i), t0.Add(time.Duration(i)*time.Millisecond))
	}
	if len(l.failed) > maxAddrs {
		t.Errorf("%d addresses remembered, at most %d", len(l.failed), maxAddrs)
	}
}
