package serve

import (
	"context"
	_ "embed"
	"net/http"
	"slices"
)

// route is one route of the API: its method and path (a ServeMux pattern, which is also the
// OpenAPI document's path).
type route struct {
	method, path string
	h            http.HandlerFunc
}

// OpenAPI is the OpenAPI 3.1 document of the API, served at /api/v1/openapi.json.
//
//go:embed openapi.json
var OpenAPI []byte

// apiRoutes are the API's routes.
func (s *Server) apiRoutes() []route {
	w := "/api/v1/workers/{name}"
	return []route{
		{"GET", "/api/v1/server", s.info},
		{"GET", "/api/v1/workers", s.read(func(ctx context.Context, _ *http.Request) (any, error) { return s.cfg.Backend.Workers(ctx) })},
		{"GET", w, s.named(s.cfg.Backend.Worker)},
		{"GET", w + "/loop", s.named(s.cfg.Backend.Loop)},
		{"GET", w + "/iterations", s.named(s.cfg.Backend.Iterations)},
		{"GET", w + "/screen", s.screen},
		{"GET", "/api/v1/report", s.report},
		{"GET", "/api/v1/events", s.events},
		{"GET", "/api/v1/events/stream", s.stream},
		{"GET", "/api/v1/openapi.json", openapi},
		{"POST", w + "/pause", s.action(plain(s.cfg.Backend.Pause))},
		{"POST", w + "/resume", s.action(plain(s.cfg.Backend.Resume))},
		{"POST", w + "/kill", s.action(plain(s.cfg.Backend.Kill))},
		{"POST", w + "/land", s.action(plain(s.cfg.Backend.Land))},
		{"POST", w + "/send", s.action(s.send)},
		{"POST", w + "/answer", s.action(s.answer)},
	}
}

// Routes are the API's routes as "METHOD PATH", sorted: what the OpenAPI document describes.
func (s *Server) Routes() []string {
	var out []string
	for _, r := range s.routes {
		out = append(out, r.method+" "+r.path)
	}
	slices.Sort(out)
	return out
}

func (s *Server) newMux() *http.ServeMux {
	mux := http.NewServeMux()
	s.routes = s.apiRoutes()
	for _, r := range s.routes {
		mux.HandleFunc(r.method+" "+r.path, r.h)
	}
	mux.HandleFunc("GET /login", s.login)
	mux.HandleFunc("/api/", func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, http.StatusNotFound, "no such route")
	})
	web := orNotFound(s.cfg.Web)
	mux.Handle("/", web)
	mux.Handle("/static/", web)
	return mux
}

// orNotFound is h, or a 404 while there is none.
func orNotFound(h http.Handler) http.Handler {
	if h != nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, http.StatusNotFound, "not served by this swarm")
	})
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	orNotFound(s.cfg.Stream).ServeHTTP(w, r)
}

func openapi(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(OpenAPI)
}
