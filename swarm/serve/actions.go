package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
)

// The actions: POST with a JSON body, answered {"ok":true,"output":...} or an error. The
// same-origin rule is the guard's (auth.go); read-only and the body are checked here.

// maxBody bounds a request's body.
const maxBody = 64 << 10

// actionResult is an action's answer.
type actionResult struct {
	OK     bool   `json:"ok"`
	Output string `json:"output"`
}

// do is an action on the worker name with the request's body.
type do func(ctx context.Context, name string, body []byte) (string, error)

func (s *Server) action(run do) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.ReadOnly {
			writeError(w, http.StatusForbidden, "this server is read-only (swarm serve --read-only): no actions")
			return
		}
		name, err := nameOf(r)
		if err != nil {
			writeErr(w, err)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				writeError(w, http.StatusRequestEntityTooLarge, "the request's body is larger than 64 KiB")
				return
			}
			writeError(w, http.StatusBadRequest, "the request's body could not be read")
			return
		}
		out, err := run(r.Context(), name, body)
		if err != nil {
			writeErr(w, err)
			return
		}
		writeJSON(w, http.StatusOK, actionResult{OK: true, Output: out})
	}
}

// plain is an action that takes no body (or an empty object).
func plain(f func(context.Context, string) (string, error)) do {
	return func(ctx context.Context, name string, body []byte) (string, error) {
		var none struct{}
		if err := decode(body, &none, true); err != nil {
			return "", err
		}
		return f(ctx, name)
	}
}

// sendBody is POST .../send's body.
type sendBody struct {
	Line *string `json:"line"`
}

func (s *Server) send(ctx context.Context, name string, body []byte) (string, error) {
	var b sendBody
	if err := decode(body, &b, false); err != nil {
		return "", err
	}
	if b.Line == nil {
		return "", Errorf(http.StatusBadRequest, `the body must be {"line": "..."}`)
	}
	if err := checkLine("the line", *b.Line, maxLine, false); err != nil {
		return "", err
	}
	return s.cfg.Backend.Send(ctx, name, *b.Line)
}

// answerBody is POST .../answer's body.
type answerBody struct {
	Answer  string `json:"answer"`
	Message string `json:"message"`
}

func (s *Server) answer(ctx context.Context, name string, body []byte) (string, error) {
	var b answerBody
	if err := decode(body, &b, false); err != nil {
		return "", err
	}
	if b.Answer != "yes" && b.Answer != "no" {
		return "", Errorf(http.StatusBadRequest, `the answer must be "yes" or "no"`)
	}
	if err := checkLine("the message", b.Message, maxMessage, true); err != nil {
		return "", err
	}
	return s.cfg.Backend.Answer(ctx, name, b.Answer, b.Message)
}

// decode reads a JSON object into v, nothing unknown nor after it; an empty body is {} when
// empty is allowed.
func decode(body []byte, v any, empty bool) error {
	if len(bytes.TrimSpace(body)) == 0 {
		if empty {
			return nil
		}
		return Errorf(http.StatusBadRequest, "the request has no body (a JSON object)")
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return Errorf(http.StatusBadRequest, "the body is not the JSON object expected: %s", clip(err.Error(), 200))
	}
	if d.More() {
		return Errorf(http.StatusBadRequest, "the body holds more than one JSON object")
	}
	return nil
}
