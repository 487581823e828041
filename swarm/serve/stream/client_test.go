package stream

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/state/eventlog"
)

// received is one event as a subscriber read it off the wire.
type received struct {
	cursor string
	event  eventlog.Event
	at     time.Time
}

// client is one subscriber over HTTP, reading frames as the EventSource of a browser does.
type client struct {
	frames chan received
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	raw    strings.Builder // every line read, for tests of the framing
	status int
}

// subscribe connects to the stream at url with the header (Last-Event-ID) given, if any.
func subscribe(t testing.TB, url, lastID string) *client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	c := &client{frames: make(chan received, 10000), cancel: cancel, done: make(chan struct{}), status: resp.StatusCode}
	go c.read(resp)
	t.Cleanup(c.close)
	return c
}

func (c *client) read(resp *http.Response) {
	defer close(c.done)
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var cur received
	var data string
	for sc.Scan() {
		line := sc.Text()
		c.mu.Lock()
		c.raw.WriteString(line + "\n")
		c.mu.Unlock()
		switch {
		case strings.HasPrefix(line, "id: "):
			cur.cursor = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: "):
			data += strings.TrimPrefix(line, "data: ")
		case line == "" && data != "":
			cur.at = time.Now()
			if json.Unmarshal([]byte(data), &cur.event) != nil {
				cur.event = eventlog.Event{Kind: "unreadable: " + data}
			}
			c.frames <- cur
			cur, data = received{}, ""
		}
	}
}

func (c *client) close() {
	c.cancel()
	<-c.done
}

func (c *client) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.raw.String()
}

// next is the next event, within d.
func (c *client) next(t testing.TB, d time.Duration) received {
	t.Helper()
	select {
	case r := <-c.frames:
		return r
	case <-time.After(d):
		t.Fatalf("no event within %v", d)
		return received{}
	}
}

// nextIDs reads n events and returns their ids and the last one's cursor.
func (c *client) nextIDs(t testing.TB, n int) ([]int64, string) {
	t.Helper()
	var ids []int64
	var cursor string
	for range n {
		r := c.next(t, 2*time.Second)
		ids = append(ids, r.event.ID)
		cursor = r.cursor
	}
	return ids, cursor
}

// quiet checks that no event comes within d.
func (c *client) quiet(t testing.TB, d time.Duration) {
	t.Helper()
	select {
	case r := <-c.frames:
		t.Fatalf("an event came: %+v", r)
	case <-time.After(d):
	}
}

// served is a stream over a fresh state directory, behind httptest.
type served struct {
	log eventlog.Log
	srv *Server
	url string
}

func serve(t testing.TB, cfg Config) *served {
	t.Helper()
	if cfg.Root == "" {
		cfg.Root = t.TempDir()
	}
	s := New(cfg)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return &served{log: eventlog.Log{Root: cfg.Root}, srv: s, url: ts.URL}
}

// add appends events to the log.
func (s *served) add(t testing.TB, n int, e eventlog.Event) []eventlog.Event {
	t.Helper()
	var out []eventlog.Event
	for range n {
		got, err := s.log.Append(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, got)
	}
	return out
}

// waitSubscribers waits until the hub has n subscribers.
func (s *served) waitSubscribers(t testing.TB, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for s.srv.hub.subscribers() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d subscribers, want %d", s.srv.hub.subscribers(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
