package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func get(t *testing.T, h http.Handler, path string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestHandlerServesThePageWithItsTypes(t *testing.T) {
	h := Handler()
	for path, ctype := range map[string]string{
		"/":                  "text/html; charset=utf-8",
		"/static/app.js":     "text/javascript; charset=utf-8",
		"/static/style.css":  "text/css; charset=utf-8",
		"/static/icon.svg":   "image/svg+xml",
		"/static/night.js":   "text/javascript; charset=utf-8",
		"/static/index.html": "text/html; charset=utf-8",
	} {
		w := get(t, h, path, nil)
		if w.Code != http.StatusOK || w.Header().Get("Content-Type") != ctype {
			t.Errorf("%s: %d %q, want 200 %q", path, w.Code, w.Header().Get("Content-Type"), ctype)
		}
		if w.Header().Get("Cache-Control") != "no-cache" || w.Header().Get("ETag") == "" {
			t.Errorf("%s: Cache-Control %q, ETag %q", path, w.Header().Get("Cache-Control"), w.Header().Get("ETag"))
		}
	}
}

func TestHandlerAnswersAnUnchangedFileWith304(t *testing.T) {
	h := Handler()
	etag := get(t, h, "/static/app.js", nil).Header().Get("ETag")
	if w := get(t, h, "/static/app.js", map[string]string{"If-None-Match": etag}); w.Code != http.StatusNotModified || w.Body.Len() != 0 {
		t.Errorf("If-None-Match %s: %d with %d bytes, want 304 and none", etag, w.Code, w.Body.Len())
	}
	if w := get(t, h, "/static/app.js", map[string]string{"If-None-Match": `"other"`}); w.Code != http.StatusOK {
		t.Errorf("another ETag: %d, want 200", w.Code)
	}
}

func TestHandlerFindsNothingElse(t *testing.T) {
	h := Handler()
	for _, path := range []string{"/static/", "/static/nope.js", "/static/../web.go", "/api/v1/workers", "/x"} {
		if w := get(t, h, path, nil); w.Code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, w.Code)
		}
	}
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("x"))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d, want 405", w.Code)
	}
}

// TestPageHasNothingInline keeps the page within the server's policy: no inline script or
// style, no handler attributes, nothing from another origin.
func TestPageHasNothingInline(t *testing.T) {
	page := get(t, Handler(), "/", nil).Body.String()
	for _, bad := range []string{"<style", "style=", "onclick", "onload", "http://", "https://", "<script>"} {
		if strings.Contains(page, bad) {
			t.Errorf("index.html holds %q", bad)
		}
	}
}

func TestPaletteHasEveryClassTheServerGives(t *testing.T) {
	css := string(paletteCSS())
	for _, want := range []string{".screen .fg-0{color:#6e7681}", ".screen .bg-15{", ".screen .fg-16{color:#000000}",
		".screen .fg-231{color:#ffffff}", ".screen .fg-232{color:#080808}", ".screen .bg-255{background:#eeeeee}",
		".screen .inverse{", ".screen .strike{", ".screen .bold{", ".screen .dim{", ".screen .italic{", ".screen .underline{"} {
		if !strings.Contains(css, want) {
			t.Errorf("the palette lacks %q", want)
		}
	}
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/static/palette.css", nil))
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/css") || rec.Header().Get("ETag") == "" {
		t.Fatalf("palette.css: %d %v", rec.Code, rec.Header())
	}
}
