package fakeapi

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

const (
	pathMessages    = "/v1/messages"
	pathCountTokens = "/v1/messages/count_tokens"
	pathResponses   = "/v1/responses"
)

func isModelPath(p string) bool {
	if _, method, ok := geminiMethod(p); ok {
		return method != "countTokens"
	}
	return p == pathMessages || p == pathResponses || isChat(p)
}

// serve routes one request. URL.Path has no query string, so Claude Code's
// "/v1/messages?beta=true" lands on /v1/messages.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		http.Error(w, "fake API closed", http.StatusServiceUnavailable)
		return
	}
	defer s.leave()
	// Reading the whole body also lets net/http notice a client that goes away, which
	// cancels r.Context() and so releases a hung reply.
	body, _ := io.ReadAll(r.Body)
	req := &Request{Method: r.Method, Path: r.URL.Path, Body: body, Header: r.Header.Clone()}
	switch {
	case r.Method == http.MethodPost && req.Path == pathMessages:
		req.API = Anthropic
		s.model(w, r, req, parseAnthropic, s.answerAnthropic)
	case r.Method == http.MethodPost && req.Path == pathResponses:
		req.API = OpenAI
		s.model(w, r, req, parseResponses, s.answerResponses)
	case r.Method == http.MethodPost && isChat(req.Path):
		req.API = OpenAIChat
		s.model(w, r, req, parseChat, s.answerChat)
	case r.Method == http.MethodGet && isModels(req.Path):
		s.models(w, req)
	case r.Method == http.MethodPost && isGemini(req.Path):
		s.gemini(w, r, req)
	case r.Method == http.MethodPost && req.Path == pathCountTokens:
		req.API = Anthropic
		s.countTokens(w, req)
	default:
		req.Status = http.StatusNotFound
		s.record(req)
		writeJSON(w, 0, req.Status, anthropicError("not_found_error",
			fmt.Sprintf("fake API: no route for %s %s", r.Method, req.Path)), nil)
	}
}

// model answers a model request: parse, log and pick a reply, wait, then answer.
func (s *Server) model(w http.ResponseWriter, r *http.Request, req *Request,
	parse func(*Request) error, answer func(http.ResponseWriter, *http.Request, *Request, Reply)) {
	if err := parse(req); err != nil {
		req.Status = http.StatusBadRequest
		s.record(req)
		writeError(w, req, Reply{Status: req.Status, ErrorMessage: "fake API: bad request body: " + err.Error()})
		return
	}
	rep := s.record(req)
	if !s.pause(r, rep.wait()) {
		return
	}
	if rep.isError() {
		writeError(w, req, rep)
		return
	}
	answer(w, r, req, rep)
}

// countTokens estimates about four bytes per token, which is close enough for a client
// that only uses the number to decide when to compact.
func (s *Server) countTokens(w http.ResponseWriter, req *Request) {
	if err := parseAnthropic(req); err != nil {
		req.Status = http.StatusBadRequest
		s.record(req)
		writeError(w, req, Reply{Status: req.Status, ErrorMessage: "fake API: bad request body: " + err.Error()})
		return
	}
	s.record(req)
	writeJSON(w, 0, http.StatusOK, map[string]any{"input_tokens": max(1, len(req.Body)/4)}, nil)
}

// writeError answers with the error body of the request's API.
func writeError(w http.ResponseWriter, req *Request, rep Reply) {
	typ, msg := rep.errorType(req.API), rep.errorMessage(req.API)
	var body any = anthropicError(typ, msg)
	switch req.API {
	case OpenAI, OpenAIChat:
		body = map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": typ}}
	case Gemini:
		body = geminiError(rep.Status, msg)
	}
	writeJSON(w, req.Call, rep.Status, body, rep.Headers)
}

func anthropicError(typ, msg string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
}

func writeJSON(w http.ResponseWriter, call, status int, v any, headers map[string]string) {
	js := marshal(v)
	setHeaders(w, call, headers)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(js)
}

// marshal encodes without HTML escaping, so that "<" and "&" reach the client (and come
// back in later request bodies, where Match.Contains looks) as they were written.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("fakeapi: " + err.Error()) // a ToolUse.Input that JSON cannot represent
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func setHeaders(w http.ResponseWriter, call int, headers map[string]string) {
	// Anthropic clients read request-id, OpenAI clients x-request-id.
	id := newID("req_", call)
	w.Header().Set("request-id", id)
	w.Header().Set("x-request-id", id)
	for k, v := range headers {
		w.Header().Set(k, v)
	}
}

// newID makes a unique id; the call number in it helps when reading a transcript.
func newID(prefix string, call int) string {
	return fmt.Sprintf("%s%04d_%s", prefix, call, strings.ToLower(rand.Text()[:10]))
}

// stream writes server-sent events. After the first failed write every further call is a
// no-op that returns false, so writers need not check each event.
type stream struct {
	s        *Server
	r        *http.Request
	w        http.ResponseWriter
	rc       *http.ResponseController
	delay    time.Duration // between chunks
	numbered bool          // Responses events carry a sequence_number
	seq      int
	ok       bool
}

func (s *Server) openStream(w http.ResponseWriter, r *http.Request, req *Request, rep Reply, numbered bool) *stream {
	setHeaders(w, req.Call, rep.Headers)
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &stream{s: s, r: r, w: w, rc: http.NewResponseController(w),
		delay: rep.ChunkDelay, numbered: numbered, ok: true}
}

// send writes one event named name; data gets the same name as its "type".
func (st *stream) send(name string, data map[string]any) bool {
	if !st.ok {
		return false
	}
	data["type"] = name
	if st.numbered {
		data["sequence_number"] = st.seq
		st.seq++
	}
	js := marshal(data)
	if _, err := fmt.Fprintf(st.w, "event: %s\ndata: %s\n\n", name, js); err != nil {
		st.ok = false
	} else if err := st.rc.Flush(); err != nil {
		st.ok = false
	}
	return st.ok
}

// chunks streams s in pieces of at most size bytes, pausing ChunkDelay between them.
func (st *stream) chunks(s string, size int, emit func(piece string) bool) bool {
	for i, piece := range split(s, size) {
		if i > 0 && !st.s.pause(st.r, st.delay) {
			st.ok = false
		}
		if !st.ok || !emit(piece) {
			return false
		}
	}
	return true
}

// hold keeps the stream open until the client leaves or the server closes.
func (st *stream) hold() { st.s.pause(st.r, -1) }

// split cuts s into pieces of at most n bytes without splitting a UTF-8 sequence.
func split(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := n
		for cut > 1 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}
