package swarm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/state/eventlog"
)

// A host gives its events a page at a time, and says where the next page starts: after the
// last event it looked at, kept or not.
func TestEventsPageSaysWhereTheNextStarts(t *testing.T) {
	log := eventlog.Log{Root: t.TempDir()}
	for _, w := range []string{"a", "b", "a", "b", "b", "a"} {
		if _, err := log.Append(eventlog.Event{Kind: eventlog.LoopPaused, Worker: w}); err != nil {
			t.Fatal(err)
		}
	}
	q, _ := parseEventsQuery(nil, []string{"a"}, nil, "local", queryNow)
	r, err := eventsPage(log, q, 0, 2)
	if err != nil || len(r.Events) != 2 || r.Events[1].ID != 3 || r.Next != 3 || !r.More {
		t.Fatalf("first page: %+v, %v", r, err)
	}
	r, _ = eventsPage(log, q, r.Next, 2)
	if len(r.Events) != 1 || r.Events[0].ID != 6 || r.Next != 6 || r.More {
		t.Fatalf("second page: %+v", r)
	}
	r, _ = eventsPage(log, q, r.Next, 2)
	if len(r.Events) != 0 || r.Next != 6 || r.More {
		t.Fatalf("nothing new: %+v", r)
	}
}

// What a host answers is untrusted: events at or before the id asked for, or out of order, are
// dropped; texts are bounded; an answer that says "more" but moves nothing is refused.
func TestAcceptEventsTakesAHostsAnswerWithCare(t *testing.T) {
	huge := strings.Repeat("é", 2*eventlog.MaxText)
	reply := eventsReply{Events: []eventlog.Event{
		{ID: 4, Kind: "loop.done"},
		{ID: 6, Kind: "loop.done", Detail: huge + "\nsecond line"},
		{ID: 5, Kind: "loop.done"},
		{ID: 7, Kind: "loop.done"},
	}, Next: 2}
	data, _ := json.Marshal(reply)
	r, err := acceptEvents("box", data, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Events) != 2 || r.Events[0].ID != 6 || r.Events[1].ID != 7 || r.Next != 7 {
		t.Fatalf("accepted %+v", r)
	}
	if d := r.Events[0].Detail; len(d) > eventlog.MaxText || strings.Contains(d, "\n") {
		t.Fatalf("a text unbounded: %d bytes", len(d))
	}
	if _, err := acceptEvents("box", []byte("<html>"), 0); err == nil || !strings.Contains(err.Error(), "host box did not answer with its events") {
		t.Fatalf("not JSON: %v", err)
	}
	stuck, _ := json.Marshal(eventsReply{Next: 4, More: true})
	if _, err := acceptEvents("box", stuck, 4); err == nil {
		t.Fatal("an answer that moves nothing yet says more was taken")
	}
}
