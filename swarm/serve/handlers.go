package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
)

// The read routes: a request's parameters checked, the Backend asked, its value written.

func (s *Server) info(w http.ResponseWriter, r *http.Request) {
	in, err := s.cfg.Backend.Info(r.Context())
	if err != nil {
		writeErr(w, err)
		return
	}
	in.ReadOnly = s.cfg.ReadOnly
	if in.Hosts == nil {
		in.Hosts = []string{}
	}
	writeJSON(w, http.StatusOK, in)
}

// read is a route whose value the Backend gives for the request.
func (s *Server) read(get func(context.Context, *http.Request) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, err := get(r.Context(), r)
		if err != nil {
			writeErr(w, err)
			return
		}
		writeJSON(w, http.StatusOK, v)
	}
}

// named is a route about the worker of the path.
func (s *Server) named(get func(context.Context, string) (any, error)) http.HandlerFunc {
	return s.read(func(ctx context.Context, r *http.Request) (any, error) {
		name, err := nameOf(r)
		if err != nil {
			return nil, err
		}
		return get(ctx, name)
	})
}

func (s *Server) screen(w http.ResponseWriter, r *http.Request) {
	s.read(func(ctx context.Context, r *http.Request) (any, error) {
		name, err := nameOf(r)
		if err != nil {
			return nil, err
		}
		q := r.URL.Query()
		lines, err := screenLines(q.Get("lines"))
		if err != nil {
			return nil, err
		}
		html, err := colourOf(q.Get("colour"))
		if err != nil {
			return nil, err
		}
		return s.cfg.Backend.Screen(ctx, name, lines, html)
	})(w, r)
}

func (s *Server) report(w http.ResponseWriter, r *http.Request) {
	s.read(func(ctx context.Context, r *http.Request) (any, error) {
		since := r.URL.Query().Get("since")
		if err := checkWord("since", since); err != nil {
			return nil, err
		}
		return s.cfg.Backend.Report(ctx, since)
	})(w, r)
}

func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	s.read(func(ctx context.Context, r *http.Request) (any, error) {
		q, err := eventsQueryOf(r.URL.Query())
		if err != nil {
			return nil, err
		}
		return s.cfg.Backend.Events(ctx, q)
	})(w, r)
}

// nameOf is the worker the path names, checked.
func nameOf(r *http.Request) (string, error) {
	name := r.PathValue("name")
	return name, checkName(name)
}

// Default and most lines of a screen.
const (
	defaultLines = 30
	maxLines     = 2000
)

// screenLines reads ?lines=N: 1 to maxLines, defaultLines when absent.
func screenLines(s string) (int, error) {
	if s == "" {
		return defaultLines, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxLines {
		return 0, Errorf(http.StatusBadRequest, "lines must be a number from 1 to %d", maxLines)
	}
	return n, nil
}

// colourOf reads ?colour=: html, or nothing.
func colourOf(s string) (bool, error) {
	switch s {
	case "":
		return false, nil
	case "html":
		return true, nil
	}
	return false, Errorf(http.StatusBadRequest, "colour must be html (or left out)")
}

func writeErr(w http.ResponseWriter, err error) {
	status, msg := statusOf(err)
	writeError(w, status, msg)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": oneLine(msg)})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error":"the answer could not be written as JSON"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}
