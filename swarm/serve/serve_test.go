package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const testToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// fakeBackend answers every read with its name, and records the actions.
type fakeBackend struct{ did []string }

func (f *fakeBackend) Info(context.Context) (Info, error) {
	return Info{Version: "v", Hosts: []string{"local"}, User: "u"}, nil
}
func (f *fakeBackend) Workers(context.Context) (any, error) { return []string{"w1"}, nil }
func (f *fakeBackend) Worker(_ context.Context, n string) (any, error) {
	if n == "gone" {
		return nil, Errorf(http.StatusNotFound, "no worker named 'gone'")
	}
	return map[string]string{"name": n}, nil
}
func (f *fakeBackend) Loop(_ context.Context, n string) (any, error)       { return n, nil }
func (f *fakeBackend) Iterations(_ context.Context, n string) (any, error) { return []any{}, nil }
func (f *fakeBackend) Screen(_ context.Context, n string, lines int, html bool) (any, error) {
	return map[string]any{"lines": lines, "html": html}, nil
}
func (f *fakeBackend) Report(_ context.Context, since string) (any, error)  { return since, nil }
func (f *fakeBackend) Events(_ context.Context, q EventsQuery) (any, error) { return q, nil }
func (f *fakeBackend) act(what string) (string, error) {
	f.did = append(f.did, what)
	return "did " + what, nil
}
func (f *fakeBackend) Pause(_ context.Context, n string) (string, error) { return f.act("pause " + n) }
func (f *fakeBackend) Resume(_ context.Context, n string) (string, error) {
	return f.act("resume " + n)
}
func (f *fakeBackend) Kill(_ context.Context, n string) (string, error) { return f.act("kill " + n) }
func (f *fakeBackend) Land(_ context.Context, n string) (string, error) { return f.act("land " + n) }
func (f *fakeBackend) Send(_ context.Context, n, line string) (string, error) {
	return f.act("send " + n + " " + line)
}
func (f *fakeBackend) Answer(_ context.Context, n, a, m string) (string, error) {
	return f.act("answer " + n + " " + a + " " + m)
}

// testServer is a server on a fake backend and a clock that stands still unless moved.
type testServer struct {
	*Server
	b   *fakeBackend
	now time.Time
	log strings.Builder
}

func newTestServer(readOnly bool) *testServer {
	ts := &testServer{b: &fakeBackend{}, now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	ts.Server = New(Config{Token: testToken, Backend: ts.b, ReadOnly: readOnly, Now: func() time.Time { return ts.now }})
	ts.Server.cfg.Log.SetOutput(&ts.log)
	return ts
}

// do makes a request through the whole handler; set is applied to it first.
func (ts *testServer) do(method, target, body string, set func(*http.Request)) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	r.RemoteAddr = "192.0.2.7:4242"
	if set != nil {
		set(r)
	}
	w := httptest.NewRecorder()
	ts.Handler().ServeHTTP(w, r)
	return w
}

func bearer(tok string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }
}

func cookie(tok string, headers ...string) func(*http.Request) {
	return func(r *http.Request) {
		r.AddCookie(&http.Cookie{Name: CookieName, Value: tok})
		for i := 0; i+1 < len(headers); i += 2 {
			r.Header.Set(headers[i], headers[i+1])
		}
	}
}

func errorOf(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	var e struct{ Error string }
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Error == "" {
		t.Fatalf("body %q is no {\"error\": ...}", w.Body.String())
	}
	return e.Error
}

func TestEveryRouteNeedsTheToken(t *testing.T) {
	ts := newTestServer(false)
	for _, target := range []string{"/", "/static/app.js", "/api/v1/workers", "/api/v1/workers/w1", "/api/v1/events/stream",
		"/api/v1/openapi.json", "/api/v1/nothing"} {
		w := ts.do("GET", target, "", nil)
		if w.Code != http.StatusUnauthorized || strings.Contains(w.Body.String(), "w1") {
			t.Errorf("GET %s without a token: %d %q, want 401 and nothing of the workers", target, w.Code, w.Body)
		}
	}
	if w := ts.do("POST", "/api/v1/workers/w1/pause", "", nil); w.Code != http.StatusUnauthorized || len(ts.b.did) > 0 {
		t.Errorf("POST without a token: %d, did %v", w.Code, ts.b.did)
	}
}

func TestAWrongTokenIs401AndLoggedWithoutTheToken(t *testing.T) {
	ts := newTestServer(false)
	w := ts.do("GET", "/api/v1/workers", "", bearer("deadbeef"))
	if w.Code != http.StatusUnauthorized || errorOf(t, w) != "wrong token" {
		t.Errorf("wrong token: %d %q", w.Code, w.Body)
	}
	if l := ts.log.String(); !strings.Contains(l, "failed login from 192.0.2.7") || !strings.Contains(l, "2026-05-01T12:00:00Z") || strings.Contains(l, "deadbeef") {
		t.Errorf("log %q: want the address and time, never the token tried", l)
	}
}

func TestABearerTokenReads(t *testing.T) {
	ts := newTestServer(false)
	w := ts.do("GET", "/api/v1/workers", "", bearer(testToken))
	if w.Code != http.StatusOK || strings.TrimSpace(w.Body.String()) != `["w1"]` {
		t.Errorf("bearer: %d %q", w.Code, w.Body)
	}
}

func TestTheCookieReads(t *testing.T) {
	ts := newTestServer(false)
	if w := ts.do("GET", "/api/v1/workers/w1", "", cookie(testToken)); w.Code != http.StatusOK {
		t.Errorf("cookie: %d %q", w.Code, w.Body)
	}
}

func TestLoginSetsTheCookieAndRedirects(t *testing.T) {
	ts := newTestServer(false)
	w := ts.do("GET", "/login?token="+testToken, "", nil)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/" {
		t.Fatalf("login: %d to %q", w.Code, w.Header().Get("Location"))
	}
	c := w.Result().Cookies()
	if len(c) != 1 || c[0].Name != CookieName || c[0].Value != testToken || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode || c[0].Secure {
		t.Errorf("cookie %+v: want HttpOnly, SameSite=Strict, not Secure without TLS", c)
	}
	if w := ts.do("GET", "/login?token=nope", "", nil); w.Code != http.StatusUnauthorized || len(w.Result().Cookies()) > 0 {
		t.Errorf("a wrong login: %d, cookies %v", w.Code, w.Result().Cookies())
	}
	if w := ts.do("GET", "/login", "", nil); w.Code != http.StatusBadRequest {
		t.Errorf("a login without a token: %d", w.Code)
	}
}

func TestLoginUnderTLSSetsASecureCookie(t *testing.T) {
	ts := newTestServer(false)
	w := ts.do("GET", "/login?token="+testToken, "", func(r *http.Request) { r.TLS = &tlsState })
	if c := w.Result().Cookies(); len(c) != 1 || !c[0].Secure {
		t.Errorf("cookie under TLS %+v: want Secure", c)
	}
}

func TestFailedLoginsAreLimitedPerAddress(t *testing.T) {
	ts := newTestServer(false)
	for i := range loginTries {
		if w := ts.do("GET", "/login?token=wrong", "", nil); w.Code != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d", i+1, w.Code)
		}
		ts.now = ts.now.Add(time.Second)
	}
	// Locked: even the right token is not tried.
	w := ts.do("GET", "/api/v1/workers", "", bearer(testToken))
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" {
		t.Fatalf("after %d failures: %d, Retry-After %q", loginTries, w.Code, w.Header().Get("Retry-After"))
	}
	if !strings.Contains(ts.log.String(), "locked out") {
		t.Errorf("log %q: the lockout is not said", ts.log.String())
	}
	other := ts.do("GET", "/api/v1/workers", "", func(r *http.Request) { bearer(testToken)(r); r.RemoteAddr = "192.0.2.8:1" })
	if other.Code != http.StatusOK {
		t.Errorf("another address: %d", other.Code)
	}
	ts.now = ts.now.Add(loginWindow)
	if w := ts.do("GET", "/api/v1/workers", "", bearer(testToken)); w.Code != http.StatusOK {
		t.Errorf("a minute later: %d", w.Code)
	}
}

func TestNoTokenIsNoFailedLogin(t *testing.T) {
	ts := newTestServer(false)
	for range loginTries + 1 {
		ts.do("GET", "/", "", nil)
	}
	if w := ts.do("GET", "/api/v1/workers", "", bearer(testToken)); w.Code != http.StatusOK {
		t.Errorf("after visits without a token: %d", w.Code)
	}
}
