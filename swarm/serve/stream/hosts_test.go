package stream

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/state/eventlog"
)

// fakeHosts are other machines' logs in memory, answering as `host __events` does.
type fakeHosts struct {
	mu    sync.Mutex
	logs  map[string][]eventlog.Event
	calls int
	down  bool
}

func newFakeHosts(names ...string) *fakeHosts {
	f := &fakeHosts{logs: map[string][]eventlog.Event{}}
	for _, n := range names {
		f.logs[n] = nil
	}
	return f
}

func (f *fakeHosts) Names() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for n := range f.logs {
		out = append(out, n)
	}
	return out
}

func (f *fakeHosts) add(host string, kind string) eventlog.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	e := eventlog.Event{ID: int64(len(f.logs[host]) + 1), Time: time.Now().UTC(), Kind: kind, Worker: "r1"}
	f.logs[host] = append(f.logs[host], e)
	return e
}

func (f *fakeHosts) Events(ctx context.Context, after map[string]int64, since time.Time) []HostEvents {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	var out []HostEvents
	for h, log := range f.logs {
		r := HostEvents{Host: h}
		if f.down {
			r.Err = context.DeadlineExceeded
			out = append(out, r)
			continue
		}
		from, byID := after[h]
		r.Next = from
		for _, e := range log {
			if e.ID <= from {
				continue
			}
			r.Next = e.ID
			if byID || !e.Time.Before(since) {
				r.Events = append(r.Events, e)
			}
		}
		out = append(out, r)
	}
	return out
}

func (f *fakeHosts) asked() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func (f *fakeHosts) waitAsked(t testing.TB, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for f.asked() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the hosts were asked %d times, want %d", f.asked(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The hosts' events come with this machine's, each with its host, and the cursor names every
// machine: resuming by it gives what every machine wrote meanwhile, once.
func TestHostEventsComeWithTheirCursor(t *testing.T) {
	hosts := newFakeHosts("box")
	hosts.add("box", eventlog.LoopDone) // before anyone subscribed: not sent
	s := serve(t, Config{Hosts: hosts, Poll: 20 * time.Millisecond})
	c := subscribe(t, s.url, "")
	hosts.waitAsked(t, 1)
	s.add(t, 1, eventlog.Event{Kind: eventlog.LoopDone})
	r := c.next(t, time.Second)
	if r.event.ID != 1 || r.cursor != "1,box:1" {
		t.Fatalf("got %+v", r)
	}
	hosts.add("box", eventlog.LoopPaused)
	r = c.next(t, time.Second)
	if r.event.Host != "box" || r.event.ID != 2 || r.event.Kind != eventlog.LoopPaused || r.cursor != "1,box:2" {
		t.Fatalf("got %+v", r)
	}
	c.close()
	s.waitSubscribers(t, 0)
	hosts.add("box", eventlog.LoopResumed)
	hosts.add("box", eventlog.LoopDone)
	s.add(t, 2, eventlog.Event{Kind: eventlog.GatePassed})
	again := subscribe(t, s.url, r.cursor)
	got := map[string][]int64{}
	var last string
	for range 4 {
		r := again.next(t, 2*time.Second)
		got[r.event.Host] = append(got[r.event.Host], r.event.ID)
		last = r.cursor
	}
	if !equalIDs(got["local"], 2, 3) || !equalIDs(got["box"], 3, 4) || last != "3,box:4" {
		t.Fatalf("resumed: %v, last cursor %s", got, last)
	}
	again.quiet(t, 100*time.Millisecond)
}

// A subscriber resuming from an older place in a host's log than the hub's is given the
// host's events from there, once; the subscriber already there is given nothing twice.
func TestAnOlderHostCursorIsAskedFor(t *testing.T) {
	hosts := newFakeHosts("box")
	for range 5 {
		hosts.add("box", eventlog.LoopDone)
	}
	s := serve(t, Config{Hosts: hosts, Poll: 20 * time.Millisecond})
	first := subscribe(t, s.url, "")
	hosts.waitAsked(t, 2)
	old := subscribe(t, s.url, "0,box:2")
	ids, cursor := old.nextIDs(t, 3)
	if !equalIDs(ids, 3, 4, 5) || cursor != "0,box:5" {
		t.Fatalf("the older cursor got %v (%s)", ids, cursor)
	}
	hosts.add("box", eventlog.LoopDone)
	for _, c := range []*client{first, old} {
		r := c.next(t, time.Second)
		if r.event.ID != 6 {
			t.Fatalf("got %+v", r)
		}
		c.quiet(t, 100*time.Millisecond)
	}
}

// A host that does not answer keeps its place: its events come once it answers again.
func TestAHostDownKeepsItsPlace(t *testing.T) {
	hosts := newFakeHosts("box")
	s := serve(t, Config{Hosts: hosts, Poll: 20 * time.Millisecond})
	c := subscribe(t, s.url, "")
	hosts.waitAsked(t, 1)
	hosts.mu.Lock()
	hosts.down = true
	hosts.mu.Unlock()
	hosts.add("box", eventlog.LoopDone)
	n := hosts.asked()
	hosts.waitAsked(t, n+2)
	hosts.mu.Lock()
	hosts.down = false
	hosts.mu.Unlock()
	r := c.next(t, time.Second)
	if r.event.Host != "box" || r.event.ID != 1 {
		t.Fatalf("got %+v", r)
	}
}

func equalIDs(got []int64, want ...int64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}
