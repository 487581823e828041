package stream

import (
	"encoding/json"
	"net/http"
	"time"
)

// Config is what the stream is served from.
type Config struct {
	Root  string // the state directory: its event log
	Hosts Hosts  // the other machines; nil: this machine's events alone
	// Now is the clock: where a subscriber with no cursor starts on the hosts; nil: time.Now.
	Now func() time.Time
	// Poll is how often the hosts are asked for new events while someone is subscribed;
	// 0: every 3 s, as `swarm events --follow` asks them.
	Poll time.Duration
	// KeepAlive is how often a comment is sent to every subscriber so that proxies and
	// browsers keep a quiet connection open; 0: every 30 s.
	KeepAlive time.Duration
	// Buffer is how many parts (a machine's new events at one read) may wait for a
	// subscriber before it is let go as too slow; 0: 64.
	Buffer int
	// WriteTimeout bounds each write to a subscriber; 0: 10 s.
	WriteTimeout time.Duration
	// Logf is told of what goes wrong out of a request's sight (the log unreadable, a host
	// not answering); nil: nothing is said.
	Logf func(format string, args ...any)
}

// Retry is how long a browser waits before it connects again (told once, at the start).
const Retry = 2 * time.Second

func (c Config) withDefaults() Config {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Poll <= 0 {
		c.Poll = 3 * time.Second
	}
	if c.KeepAlive <= 0 {
		c.KeepAlive = 30 * time.Second
	}
	if c.Buffer <= 0 {
		c.Buffer = 64
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = 10 * time.Second
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	return c
}

// Server is the event stream, an http.Handler.
type Server struct {
	cfg Config
	hub *hub
}

// New is the stream of the state directory cfg.Root. Nothing runs until someone subscribes.
func New(cfg Config) *Server {
	cfg = cfg.withDefaults()
	return &Server{cfg: cfg, hub: newHub(cfg)}
}

// ServeHTTP serves one subscriber until it goes, or is let go as too slow (it resumes from
// the last cursor it was sent).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		writeError(w, http.StatusMethodNotAllowed, "the event stream is read with GET")
		return
	}
	req, err := parseRequest(r, s.cfg.Now())
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	sb := newSub(s.cfg.Buffer, req.since, req.since.IsZero(), req.filter)
	if req.since.IsZero() {
		sb.since = s.cfg.Now()
	}
	last, err := s.hub.join(sb, req.cursor)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "cannot read the event log: "+err.Error())
		return
	}
	defer s.hub.leave(sb)
	out := newWire(w, s.cfg.WriteTimeout)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // a proxy in front passes each event on as it comes
	w.WriteHeader(http.StatusOK)
	if out.start() != nil {
		return
	}
	for _, it := range s.backlog(r.Context(), sb, req, last) {
		if out.frames(sb.take(it)) != nil {
			return
		}
	}
	s.serve(r, sb, out)
}

// serve sends what the hub hands the subscriber until it goes or is let go.
func (s *Server) serve(r *http.Request, sb *sub, out *wire) {
	for {
		select {
		case <-r.Context().Done():
			return
		case <-sb.gone:
			return
		case it := <-sb.ch:
			var err error
			if it.ping {
				err = out.ping()
			} else {
				err = out.frames(sb.take(it))
			}
			if err != nil {
				return
			}
		}
	}
}

// writeError answers {"error": msg}.
func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
