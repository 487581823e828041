package web

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed static
var files embed.FS

// file is one embedded file ready to serve.
type file struct {
	body  []byte
	ctype string
	etag  string
}

// types are the content types of the page's files by extension, said here rather than
// taken from the system's mime tables, which differ between machines.
var types = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
}

// Handler serves the page: "/" is index.html, "/static/NAME" the files beside it; anything
// else is not found. Only GET and HEAD are answered.
func Handler() http.Handler {
	byPath, err := load()
	if err != nil {
		// The files are compiled in: a failure here is a broken build, not a user's error.
		panic("web: the embedded page cannot be read: " + err.Error())
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name := r.URL.Path
		if name == "/" || name == "/index.html" {
			name = "/static/index.html"
		}
		f, ok := byPath[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		serve(w, r, f)
	})
}

// load reads every embedded file once, with its type and ETag.
func load() (map[string]file, error) {
	byPath := map[string]file{}
	err := fs.WalkDir(files, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		ctype, ok := types[path.Ext(p)]
		if !ok {
			ctype = mime.TypeByExtension(path.Ext(p))
		}
		byPath["/"+p] = fileOf(body, ctype)
		return nil
	})
	byPath["/static/palette.css"] = fileOf(paletteCSS(), types[".css"])
	return byPath, err
}

// fileOf is body ready to serve as ctype, its ETag a hash of it.
func fileOf(body []byte, ctype string) file {
	sum := sha256.Sum256(body)
	return file{body: body, ctype: ctype, etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`}
}

// serve writes f, or 304 when the browser has it already.
func serve(w http.ResponseWriter, r *http.Request, f file) {
	h := w.Header()
	h.Set("ETag", f.etag)
	// no-cache: kept, but asked about each time, so a new binary's page is seen at once.
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	if match(r.Header.Get("If-None-Match"), f.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", f.ctype)
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return
	}
	_, _ = w.Write(f.body)
}

// match says whether an If-None-Match header names etag (or is "*").
func match(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}
