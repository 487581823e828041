package stream

import (
	"encoding/json"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/state/eventlog"
)

func wantIDs(t *testing.T, got []int64, want ...int64) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("ids %v, want %v", got, want)
	}
}

// An event appended reaches a subscriber within a second; the stream starts with retry:, and
// a subscriber with no cursor is sent only what comes after it connects.
func TestAppendedEventArrivesWithinASecond(t *testing.T) {
	s := serve(t, Config{})
	s.add(t, 2, eventlog.Event{Kind: eventlog.LoopDone, Worker: "w0"})
	c := subscribe(t, s.url, "")
	for range 5 {
		e := s.add(t, 1, eventlog.Event{Kind: eventlog.IterationStarted, Worker: "w1"})[0]
		r := c.next(t, time.Second)
		if r.event.ID != e.ID || r.event.Host != "local" || r.cursor != strings.TrimSpace(itoa(e.ID)) {
			t.Fatalf("got %+v, want event %d from local", r, e.ID)
		}
		if lat := r.at.Sub(e.Time); lat > 500*time.Millisecond {
			t.Fatalf("the event took %v from Append to the subscriber", lat)
		}
	}
	if !strings.HasPrefix(c.text(), "retry: 2000\n\n") {
		t.Fatalf("the stream starts %q", c.text()[:20])
	}
}

func itoa(n int64) string { return Cursor{"local": n}.String() }

// A subscriber that went away resumes after the Last-Event-ID it was last sent (or ?after=):
// exactly the events it missed, in order, none twice, then the new ones.
func TestResumeGetsExactlyWhatWasMissed(t *testing.T) {
	s := serve(t, Config{})
	c := subscribe(t, s.url, "")
	s.add(t, 3, eventlog.Event{Kind: eventlog.LoopDone})
	ids, cursor := c.nextIDs(t, 3)
	wantIDs(t, ids, 1, 2, 3)
	c.close()
	s.waitSubscribers(t, 0)
	s.add(t, 3, eventlog.Event{Kind: eventlog.LoopPaused})
	for _, resume := range []func() *client{
		func() *client { return subscribe(t, s.url, cursor) },
		func() *client { return subscribe(t, s.url+"?after="+cursor, "") },
	} {
		r := resume()
		ids, _ = r.nextIDs(t, 3)
		wantIDs(t, ids, 4, 5, 6)
		r.quiet(t, 100*time.Millisecond)
	}
	s.add(t, 1, eventlog.Event{Kind: eventlog.LoopResumed})
	// The header wins over ?after (a browser sends both when it reconnects).
	h := subscribe(t, s.url+"?after=1", "5")
	ids, _ = h.nextIDs(t, 2)
	wantIDs(t, ids, 6, 7)
	h.quiet(t, 100*time.Millisecond)
}

// ?since starts at a time; without a cursor or a since only new events come.
func TestSinceStartsAtATime(t *testing.T) {
	s := serve(t, Config{})
	old := time.Now().Add(-time.Hour).UTC()
	for i := range 3 {
		s.add(t, 1, eventlog.Event{Kind: eventlog.LoopDone, Time: old.Add(time.Duration(i) * time.Minute)})
	}
	since := old.Add(90 * time.Second).Format(time.RFC3339)
	c := subscribe(t, s.url+"?since="+since, "")
	ids, cursor := c.nextIDs(t, 1)
	wantIDs(t, ids, 3)
	if cursor != "3" {
		t.Fatalf("cursor %q", cursor)
	}
	s.add(t, 1, eventlog.Event{Kind: eventlog.LoopDone})
	ids, _ = c.nextIDs(t, 1)
	wantIDs(t, ids, 4)
	// A duration, as swarm events --since takes it: the last 20 minutes hold only the newest.
	ago := subscribe(t, s.url+"?since=20m", "")
	ids, _ = ago.nextIDs(t, 1)
	wantIDs(t, ids, 4)
}

func TestFiltersByWorkerAndKind(t *testing.T) {
	s := serve(t, Config{})
	w1 := subscribe(t, s.url+"?worker=w1", "")
	loops := subscribe(t, s.url+"?kind=loop&kind=gate.failed", "")
	for _, e := range []eventlog.Event{
		{Kind: eventlog.LoopDone, Worker: "w2"},
		{Kind: eventlog.IterationStarted, Worker: "w1"},
		{Kind: eventlog.GatePassed, Worker: "w1"},
		{Kind: eventlog.GateFailed, Worker: "w2"},
	} {
		s.add(t, 1, e)
	}
	ids, cursor := w1.nextIDs(t, 2)
	wantIDs(t, ids, 2, 3)
	if cursor != "3" {
		t.Fatalf("cursor %q", cursor)
	}
	ids, cursor = loops.nextIDs(t, 2)
	wantIDs(t, ids, 1, 4)
	if cursor != "4" {
		t.Fatalf("cursor %q", cursor)
	}
}

func TestBadRequestsAre400WithAJSONError(t *testing.T) {
	s := serve(t, Config{})
	for _, q := range []string{"?after=x", "?after=-3", "?since=yesterday", "?worker=a%20b", "?kind=LOOP",
		"?after=" + strings.Repeat("1", MaxCursor+1)} {
		resp, err := http.Get(s.url + q)
		if err != nil {
			t.Fatal(err)
		}
		var body struct{ Error string }
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != 400 || err != nil || body.Error == "" || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %q, %v", q, resp.StatusCode, body.Error, err)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, s.url, nil)
	req.Header.Set("Last-Event-ID", "1,box:1,box:2")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 400 {
		t.Fatalf("a bad Last-Event-ID: %v, %v", resp.StatusCode, err)
	}
	resp.Body.Close()
}

// The log's texts are untrusted: a text holding blank lines and "data:" stays inside the one
// event's JSON.
func TestATextCannotForgeAnEvent(t *testing.T) {
	s := serve(t, Config{})
	c := subscribe(t, s.url, "")
	forged := "x\n\ndata: {\"id\":99,\"kind\":\"loop.done\"}\n\nid: 99\r\n\r\ndata: forged"
	raw, _ := json.Marshal(eventlog.Event{ID: 1, Time: time.Now().UTC(), Kind: eventlog.PersonNeeded, Detail: forged})
	// Written past Append, which would have put the text on one line itself.
	f, err := os.OpenFile(s.log.Path(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(append(raw, '\n'))
	f.Close()
	s.add(t, 1, eventlog.Event{Kind: eventlog.LoopDone})
	first := c.next(t, time.Second)
	if first.event.ID != 1 || first.event.Detail != forged {
		t.Fatalf("first %+v", first)
	}
	second := c.next(t, time.Second)
	if second.event.ID != 2 {
		t.Fatalf("second %+v: an event was forged", second)
	}
	c.quiet(t, 100*time.Millisecond)
	if strings.Contains(c.text(), "\ndata: forged") || strings.Count(c.text(), "\ndata: ") != 2 {
		t.Fatalf("the wire:\n%s", c.text())
	}
}

func TestTwoSubscribersGetEveryEvent(t *testing.T) {
	s := serve(t, Config{})
	a, b := subscribe(t, s.url, ""), subscribe(t, s.url, "")
	s.add(t, 20, eventlog.Event{Kind: eventlog.LoopDone})
	for _, c := range []*client{a, b} {
		ids, _ := c.nextIDs(t, 20)
		for i, id := range ids {
			if id != int64(i+1) {
				t.Fatalf("ids %v", ids)
			}
		}
	}
}

// A subscriber that does not keep up is let go; the others are not held up.
func TestSlowSubscriberIsLetGo(t *testing.T) {
	s := serve(t, Config{Buffer: 2})
	fast := subscribe(t, s.url, "")
	slow := newSub(2, time.Now(), true, Filter{}) // subscribed, never read
	if _, err := s.srv.hub.join(slow, nil); err != nil {
		t.Fatal(err)
	}
	defer s.srv.hub.leave(slow)
	for i := range 10 {
		e := s.add(t, 1, eventlog.Event{Kind: eventlog.LoopDone})[0]
		r := fast.next(t, time.Second)
		if r.event.ID != e.ID {
			t.Fatalf("event %d: got %d", i, r.event.ID)
		}
	}
	select {
	case <-slow.gone:
	default:
		t.Fatal("the slow subscriber was not let go")
	}
	s.waitSubscribers(t, 1)
}

// Once every subscriber has gone, nothing of the stream runs.
func TestNothingRunsWhenNobodyIsSubscribed(t *testing.T) {
	hosts := newFakeHosts("box")
	s := serve(t, Config{Hosts: hosts, Poll: 20 * time.Millisecond})
	settle(t, func() bool { return true })
	before := runtime.NumGoroutine()
	var cs []*client
	for range 3 {
		cs = append(cs, subscribe(t, s.url, ""))
	}
	s.add(t, 2, eventlog.Event{Kind: eventlog.LoopDone})
	for _, c := range cs {
		c.nextIDs(t, 2)
	}
	hosts.waitAsked(t, 2)
	for _, c := range cs {
		c.close()
	}
	s.waitSubscribers(t, 0)
	http.DefaultClient.CloseIdleConnections()
	settle(t, func() bool { return runtime.NumGoroutine() <= before })
	asked := hosts.asked()
	time.Sleep(100 * time.Millisecond) // five polls' time: no one asks the hosts any more
	if hosts.asked() != asked {
		t.Fatal("the hosts are asked with nobody subscribed")
	}
}

// settle waits, with a deadline, until ok.
func settle(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("not settled; goroutines:\n%s", buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Subscribers connected and nothing appended: the hub does not wake (no poll of the log).
func TestIdleHubSleeps(t *testing.T) {
	s := serve(t, Config{})
	for range 5 {
		subscribe(t, s.url, "")
	}
	s.add(t, 1, eventlog.Event{Kind: eventlog.LoopDone})
	time.Sleep(200 * time.Millisecond) // the append's wake-ups are over
	before := s.srv.hub.wakes.Load()
	time.Sleep(2 * time.Second)
	if n := s.srv.hub.wakes.Load() - before; n != 0 {
		t.Fatalf("the hub woke %d times in 2 s with nothing appended", n)
	}
}
