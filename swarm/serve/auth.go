package serve

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Who may do what: every route wants the token, as the login's cookie or as
// Authorization: Bearer; a browser's action (a cookie's POST) must come from the page itself.

// CookieName is the login's cookie.
const CookieName = "swarm_token"

// cookieAge is how long a login lasts in the browser.
const cookieAge = 30 * 24 * time.Hour

// credKind is how a request carries a token.
type credKind int

const (
	credNone credKind = iota
	credCookie
	credBearer
)

// credential is the token a request carries and how; a bearer token is taken before a cookie.
func credential(r *http.Request) (string, credKind) {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, tok, _ := strings.Cut(h, " ")
		if strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(tok), credBearer
		}
	}
	if c, err := r.Cookie(CookieName); err == nil && c.Value != "" {
		return c.Value, credCookie
	}
	return "", credNone
}

// tokenMatches compares in constant time: how long a wrong token takes tells nothing of the
// right one.
func tokenMatches(got, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// sameOrigin says whether a browser's request comes from a page of this server: its Origin
// is this server's own, or the browser says so (Sec-Fetch-Site, which no page can set). A
// request that carries neither is refused: it cannot show where it came from.
func sameOrigin(h http.Header, host string, tls bool) bool {
	scheme := "http"
	if tls {
		scheme = "https"
	}
	if o := h.Get("Origin"); o != "" && o == scheme+"://"+host {
		return true
	}
	return h.Get("Sec-Fetch-Site") == "same-origin"
}

// safeMethod is a method that changes nothing.
func safeMethod(m string) bool { return m == http.MethodGet || m == http.MethodHead }

// clientAddr is the address a request comes from (its IP; a proxy's headers are not
// believed).
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// guard lets through the requests with the token (and, for a browser's action, from the
// page); the login route checks its own.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/login" {
			next.ServeHTTP(w, r)
			return
		}
		tok, kind := credential(r)
		if kind == credNone {
			writeError(w, http.StatusUnauthorized, "no token: open the login link swarm serve printed, or send Authorization: Bearer TOKEN")
			return
		}
		if !s.checkToken(w, r, tok) {
			return
		}
		if kind == credCookie && !safeMethod(r.Method) && !sameOrigin(r.Header, r.Host, r.TLS != nil) {
			writeError(w, http.StatusForbidden, "refused: the request does not come from this server's page")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// checkToken answers a request whose token is wrong (401), or whose address failed too often
// of late (429, whatever its token); true when the token is right.
func (s *Server) checkToken(w http.ResponseWriter, r *http.Request, tok string) bool {
	now, addr := s.cfg.Now(), clientAddr(r)
	if wait, locked := s.limiter.locked(addr, now); locked {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Round(time.Second)/time.Second)+1))
		writeError(w, http.StatusTooManyRequests, "too many failed logins from this address: wait a minute")
		return false
	}
	if tokenMatches(tok, s.cfg.Token) {
		return true
	}
	nowLocked := s.limiter.fail(addr, now)
	// The token tried is never written: it may be the right one mistyped.
	s.cfg.Log.Printf("%s failed login from %s (%s %s)", now.UTC().Format(time.RFC3339), addr, r.Method, clip(r.URL.Path, 100))
	if nowLocked {
		s.cfg.Log.Printf("%s %s locked out for %s after %d failed logins", now.UTC().Format(time.RFC3339), addr, loginWindow, loginTries)
	}
	writeError(w, http.StatusUnauthorized, "wrong token")
	return false
}

// login is GET /login?token=T: the token as a cookie, and on to the page.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	tok := r.URL.Query().Get("token")
	if tok == "" {
		writeError(w, http.StatusBadRequest, "no token: /login?token=TOKEN (the link swarm serve printed)")
		return
	}
	if !s.checkToken(w, r, tok) {
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: tok, Path: "/", MaxAge: int(cookieAge / time.Second),
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
