package fakeapi

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// API names as they appear in Request.API and Match.API.
const (
	Anthropic = "anthropic"
	OpenAI    = "openai" // the Responses API
	// OpenAIChat is the Chat Completions API, which the OpenAI-compatible agents speak.
	OpenAIChat = "openai-chat"
	Gemini     = "gemini"
)

// Request is one logged request. Body and Header are shared with the log: treat them as
// read-only.
type Request struct {
	// Call numbers the model requests (Messages, Responses, Chat Completions, generateContent)
	// from 1; 0 for other paths.
	Call int
	// MainCall numbers, from 1, only the model requests that carry tools: the agent's own
	// turns, not title or other side requests. 0 when the request has no tools.
	MainCall int
	API      string // Anthropic, OpenAI, OpenAIChat, Gemini, or "" for unknown paths
	Method   string
	Path     string // without the query string
	Model    string
	Stream   bool
	HasTools bool
	// LastBlock is the newest user input: the last text (or tool_result) block of the last
	// user message for Anthropic; the last input_text of the last user item (or the output
	// of a trailing function_call_output) for Responses; the last text of the last user
	// message (or the content of a trailing tool message) for Chat Completions. Claude Code merges a prompt typed
	// after a failed turn into the failed user message, so only this block is the new one.
	LastBlock string
	// LastIsToolResult: the last user message holds a tool_result (Anthropic), or the newest
	// user-side input item is a function_call_output (Responses), or a tool message (Chat
	// Completions).
	LastIsToolResult bool
	// System is the system prompt; for Responses, the instructions and developer messages;
	// for Chat Completions, the system and developer messages.
	System string
	Body   []byte
	Header http.Header
	// Status is the status the fake answers with; 0 when the reply hangs and never answers.
	Status int
	// Rule is the index of the rule that answered, -1 for the default reply.
	Rule int
	Time time.Time
}

// Server is a running fake API. All methods are safe for concurrent use.
type Server struct {
	url      string
	hs       *http.Server
	closedCh chan struct{} // closed by Close; releases every waiting handler

	// arrive serializes numbering, rule choice and logging, so that the log is in arrival
	// order and Times counts are exact. It is never held while answering.
	arrive sync.Mutex

	mu        sync.Mutex
	rules     []*slot
	modelIDs  []string // listed by GET /v1/models beside the default
	log       []Request
	changed   chan struct{} // closed and replaced whenever the log grows
	calls     int
	mainCalls int
	closed    bool
	active    int // handlers running, for tests
	handlers  sync.WaitGroup
	closeOnce sync.Once
}

// Start serves on 127.0.0.1 on a free port until the test ends. If the test failed, the
// request log is written to t.Log first.
func Start(t testing.TB, rules ...Rule) *Server {
	t.Helper()
	s, err := listen(rules)
	if err != nil {
		t.Fatalf("fakeapi: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("fakeapi request log:\n%s", s.Summary())
		}
		s.Close()
	})
	return s
}

func listen(rules []Rule) (*Server, error) {
	// Loopback only: the CLIs must never reach anything but this process.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{
		url:      "http://" + ln.Addr().String(),
		closedCh: make(chan struct{}),
		changed:  make(chan struct{}),
		rules:    slots(rules),
	}
	s.hs = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.hs.Serve(ln) }()
	return s, nil
}

// URL is "http://127.0.0.1:PORT", without a trailing slash.
func (s *Server) URL() string { return s.url }

// SetRules replaces the rules; Times counts start again from zero. Requests already being
// answered keep the reply they got.
func (s *Server) SetRules(rules ...Rule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = slots(rules)
}

// Requests returns a copy of the request log, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// WaitFor returns the first logged request for which match is true, waiting up to timeout
// for it to arrive. It returns false on timeout or when the server is closed.
func (s *Server) WaitFor(timeout time.Duration, match func(Request) bool) (Request, bool) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for seen := 0; ; {
		s.mu.Lock()
		fresh := append([]Request(nil), s.log[seen:]...)
		changed, closed := s.changed, s.closed
		s.mu.Unlock()
		seen += len(fresh)
		// match runs unlocked so that it may call the Server's methods.
		for _, r := range fresh {
			if match(r) {
				return r, true
			}
		}
		if closed {
			return Request{}, false
		}
		select {
		case <-changed:
		case <-s.closedCh:
		case <-deadline.C:
			return Request{}, false
		}
	}
}

// Close stops the server and releases every hung or delayed request. It waits a bounded
// time for the handlers to return. It is safe to call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(s.closedCh)
		_ = s.hs.Close()
		done := make(chan struct{})
		go func() { s.handlers.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
	})
}

// Summary is the request log as text, one line per request, for failure messages.
func (s *Server) Summary() string {
	var b strings.Builder
	for _, r := range s.Requests() {
		fmt.Fprintf(&b, "%s call=%d main=%d %s %s model=%q stream=%t tools=%t toolresult=%t rule=%d status=%d last=%q\n",
			r.Time.Format("15:04:05.000"), r.Call, r.MainCall, r.Method, r.Path, r.Model, r.Stream,
			r.HasTools, r.LastIsToolResult, r.Rule, r.Status, clip(r.LastBlock, 80))
	}
	return b.String()
}

// clip shortens s to about n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// enter registers a running handler; false once the server is closing, so that Close's
// WaitGroup never sees an Add after its Wait started.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.handlers.Add(1)
	s.active++
	return true
}

func (s *Server) leave() {
	s.mu.Lock()
	s.active--
	s.mu.Unlock()
	s.handlers.Done()
}

// record numbers a model request, picks its reply and appends the request to the log, all
// in one step. A request whose Status is already set (an unknown path, a body that does not
// parse) is only logged, with that status.
func (s *Server) record(req *Request) Reply {
	s.arrive.Lock()
	defer s.arrive.Unlock()
	s.mu.Lock()
	if isModelPath(req.Path) {
		s.calls++
		req.Call = s.calls
		if req.HasTools {
			s.mainCalls++
			req.MainCall = s.mainCalls
		}
	}
	rules := s.rules
	s.mu.Unlock()

	reply, idx := Reply{Status: req.Status}, -1
	if req.Call > 0 && req.Status == 0 {
		reply, idx = choose(rules, req)
	}
	req.Rule, req.Status = idx, reply.status()
	req.Time = time.Now()

	s.mu.Lock()
	s.log = append(s.log, *req)
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
	return reply
}

// pause waits d (forever when d < 0). It returns false if the client went away or the
// server closed first, in which case the handler must give up.
func (s *Server) pause(r *http.Request, d time.Duration) bool {
	if d == 0 {
		return true
	}
	var timeout <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-timeout:
		return true
	case <-r.Context().Done():
	case <-s.closedCh:
	}
	return false
}
