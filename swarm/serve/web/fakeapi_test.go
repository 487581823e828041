package web

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// csp is the policy swarm serve sends with every response.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// fakeAPI answers the API's routes with canned data in the shapes swarm's commands print
// with --format json, and streams the events a test pushes.
type fakeAPI struct {
	t        *testing.T
	now      time.Time
	readOnly bool
	screen   map[string]any

	mu      sync.Mutex
	posts   []post
	streams chan chan string // each stream's channel, as it connects
	subs    []chan string
}

type post struct {
	Path, Body, ContentType, Cookie, FetchSite, Origin string
}

func newFakeAPI(t *testing.T) (*fakeAPI, *httptest.Server) {
	f := &fakeAPI{t: t, now: time.Now().UTC(), streams: make(chan chan string, 8)}
	f.screen = map[string]any{"lines": []string{"$ make test", "ok  swarm 1.2s"}}
	mux := http.NewServeMux()
	mux.Handle("/", Handler())
	mux.HandleFunc("GET /api/v1/server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"version": "test", "read_only": f.readOnly, "hosts": []string{"local", "buildbox"}, "user": "dev"})
	})
	mux.HandleFunc("GET /api/v1/workers", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, f.workers()) })
	mux.HandleFunc("GET /api/v1/workers/{name}", f.worker)
	mux.HandleFunc("GET /api/v1/workers/{name}/loop", f.loop)
	mux.HandleFunc("GET /api/v1/workers/{name}/iterations", f.iterations)
	mux.HandleFunc("GET /api/v1/workers/{name}/screen", f.screenOf)
	mux.HandleFunc("POST /api/v1/workers/{name}/{action}", f.action)
	mux.HandleFunc("GET /api/v1/report", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, f.report()) })
	mux.HandleFunc("GET /api/v1/events", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"events": f.events(), "cursor": "9"})
	})
	mux.HandleFunc("GET /api/v1/events/stream", f.stream)
	srv := httptest.NewServer(secured(mux))
	t.Cleanup(func() { f.closeStreams(); srv.Close() })
	return f, srv
}

// secured adds the headers swarm serve sends with every response.
func secured(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", csp)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeAPI) at(ago time.Duration) string { return f.now.Add(-ago).Format(time.RFC3339) }

// workers are three workers of two hosts: alpha runs here, beta here needs a person for a
// permission, gamma's host did not answer.
func (f *fakeAPI) workers() []map[string]any {
	cost := 1.25
	return []map[string]any{
		{"name": "alpha", "status": "running", "state": "running", "needs_person": nil, "host": "local",
			"cmd": []string{"claude"}, "started": f.at(3 * time.Hour), "cwd": "/src/app", "env": map[string]string{},
			"tags": []string{}, "tmux": nil, "worktree": nil, "pid": 4242,
			"metadata": map[string]any{"ralph": true, "ralph_iteration": 7}, "cost_usd": cost},
		{"name": "beta", "status": "running", "state": "blocked", "state_detail": "permission: Bash(rm -rf build)",
			"needs_person": map[string]any{"what": "permission: Bash(rm -rf build)", "since": f.at(4 * time.Minute)},
			"host":         "local", "cmd": []string{"claude"}, "started": f.at(2 * time.Hour), "cwd": "/src/api",
			"env": map[string]string{}, "tags": []string{}, "tmux": nil, "worktree": nil, "pid": 4343,
			"metadata": map[string]any{"ralph": true, "ralph_iteration": 3}, "cost_usd": 0.4},
		{"name": "gamma", "status": "running", "state": "unreachable", "needs_person": nil, "host": "buildbox",
			"last_seen": f.at(25 * time.Minute), "cmd": []string{"codex"}, "started": f.at(5 * time.Hour),
			"cwd": "/home/dev/web", "env": map[string]string{}, "tags": []string{}, "tmux": nil, "worktree": nil,
			"pid": 99, "metadata": map[string]any{"ralph": true, "ralph_iteration": 12}, "cost_usd": nil},
	}
}

func (f *fakeAPI) find(name string) map[string]any {
	for _, w := range f.workers() {
		ref := w["name"].(string)
		if w["host"] != "local" {
			ref += "@" + w["host"].(string)
		}
		if ref == name {
			return w
		}
	}
	return nil
}

func (f *fakeAPI) worker(w http.ResponseWriter, r *http.Request) {
	x := f.find(r.PathValue("name"))
	if x == nil {
		w.WriteHeader(http.StatusNotFound)
		writeJSON(w, map[string]string{"error": "no worker named " + r.PathValue("name")})
		return
	}
	writeJSON(w, x)
}

func (f *fakeAPI) loop(w http.ResponseWriter, r *http.Request) {
	x := f.find(r.PathValue("name"))
	if x == nil {
		w.WriteHeader(http.StatusNotFound)
		writeJSON(w, map[string]string{"error": "not a loop"})
		return
	}
	writeJSON(w, map[string]any{"worker_name": x["name"], "max_iterations": 20,
		"current_iteration": x["metadata"].(map[string]any)["ralph_iteration"], "status": "running",
		"started": x["started"], "consecutive_failures": 1, "total_failures": 2, "phase": "working",
		"work_dir": x["cwd"], "state": x["state"], "needs_person": x["needs_person"], "worker_status": x["status"]})
}

func (f *fakeAPI) iterations(w http.ResponseWriter, r *http.Request) {
	var out []map[string]any
	ends := []string{"inactivity", "exit", "api_error", "hang", "done"}
	for i, end := range ends {
		exit := 1
		out = append(out, map[string]any{"runId": "r1", "iteration": i + 1, "agent": "claude",
			"startedAt": f.at(time.Duration(60-i*10) * time.Minute), "endedAt": f.at(time.Duration(52-i*10) * time.Minute),
			"durationMs": 480000, "exitCode": &exit, "endReason": end, "signals": []string{},
			"checks":  []map[string]any{{"name": "tests", "passed": end == "done", "message": "go test ./..."}},
			"commits": []string{"abc"}, "tokens": nil, "cost": 0.21})
	}
	writeJSON(w, out)
}

func (f *fakeAPI) screenOf(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	s := map[string]any{"name": r.PathValue("name"), "status": "running", "time": f.at(0)}
	for k, v := range f.screen {
		s[k] = v
	}
	f.mu.Unlock()
	writeJSON(w, s)
}

// setScreen makes the screen these lines; with colour, the server's escaped HTML too.
func (f *fakeAPI) setScreen(lines []string, colour bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.screen = map[string]any{"lines": lines}
	if colour {
		var b strings.Builder
		for i, l := range lines {
			if i > 0 {
				b.WriteByte('\n')
			}
			fmt.Fprintf(&b, `<span class="fg-2">%s</span>`, html.EscapeString(l))
		}
		f.screen["html"] = b.String()
	}
}

func (f *fakeAPI) action(w http.ResponseWriter, r *http.Request) {
	var body strings.Builder
	buf := make([]byte, 4096)
	n, _ := r.Body.Read(buf)
	body.Write(buf[:n])
	f.mu.Lock()
	f.posts = append(f.posts, post{Path: r.URL.Path, Body: body.String(), ContentType: r.Header.Get("Content-Type"),
		Cookie: r.Header.Get("Cookie"), FetchSite: r.Header.Get("Sec-Fetch-Site"), Origin: r.Header.Get("Origin")})
	f.mu.Unlock()
	writeJSON(w, map[string]any{"ok": true, "output": r.PathValue("action") + " " + r.PathValue("name") + ": ok"})
}

func (f *fakeAPI) posted() []post {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]post(nil), f.posts...)
}
