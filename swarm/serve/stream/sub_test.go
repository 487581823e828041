package stream

import (
	"slices"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/state/eventlog"
)

func events(host string, t0 time.Time, ids ...int64) []eventlog.Event {
	var out []eventlog.Event
	for _, id := range ids {
		out = append(out, eventlog.Event{ID: id, Host: host, Kind: eventlog.LoopDone, Time: t0.Add(time.Duration(id) * time.Second)})
	}
	return out
}

func cursors(fs []frame) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.cursor)
	}
	return out
}

var t0 = time.Date(2026, 11, 29, 2, 0, 0, 0, time.UTC)

// Events given already are passed over: a part repeated (the hosts asked again from an older
// place) gives only what is new.
func TestTakePassesOverWhatWasGiven(t *testing.T) {
	s := newSub(4, t0, true, Filter{})
	s.pos = Cursor{"local": 3}
	got := s.take(item{host: "local", after: 2, events: events("local", t0, 3, 4, 5), next: 5})
	if want := []string{"4", "5"}; !slices.Equal(cursors(got), want) {
		t.Fatalf("cursors %v, want %v", cursors(got), want)
	}
}

// A part read from further on than the subscriber stands is not for it: the hub asks again
// from its place.
func TestTakeWaitsForItsOwnPlace(t *testing.T) {
	s := newSub(4, t0, true, Filter{})
	s.pos = Cursor{"local": 1, "box": 5}
	if got := s.take(item{host: "box", after: 9, events: events("box", t0, 10), next: 10}); len(got) != 0 || s.pos["box"] != 5 {
		t.Fatalf("took %v, at %v", got, s.pos)
	}
	if got := s.take(item{host: "box", after: -1, events: events("box", t0, 10), next: 10}); len(got) != 0 {
		t.Fatalf("took a part asked by time: %v", got)
	}
	got := s.take(item{host: "box", after: 5, events: events("box", t0, 6, 7), next: 9})
	if want := []string{"1,box:6", "1,box:7"}; !slices.Equal(cursors(got), want) || s.pos["box"] != 9 {
		t.Fatalf("cursors %v, want %v; at %v", cursors(got), want, s.pos)
	}
}

// A host the subscriber has no place in yet: its events from the subscriber's since on; the
// host's place the hub tells is taken only by a subscriber that started at the end.
func TestTakeAHostItHasNoPlaceIn(t *testing.T) {
	since := t0.Add(5 * time.Second)
	s := newSub(4, since, false, Filter{})
	s.pos = Cursor{"local": 1}
	if got := s.take(item{host: "box", after: -1, next: 4}); len(got) != 0 || s.pos["box"] != 0 {
		t.Fatalf("a since subscriber took a host's place from the hub: %v", s.pos)
	}
	got := s.take(item{host: "box", after: -1, events: events("box", t0, 4, 5, 6), next: 6})
	if want := []string{"1,box:5", "1,box:6"}; !slices.Equal(cursors(got), want) {
		t.Fatalf("cursors %v, want %v", cursors(got), want)
	}
	end := newSub(4, since, true, Filter{})
	end.pos = Cursor{"local": 1}
	end.take(item{host: "box", after: -1, next: 4})
	if end.pos["box"] != 4 {
		t.Fatalf("a subscriber at the end did not take the host's place: %v", end.pos)
	}
}

// A filtered-out event still moves the cursor: the next event sent carries the place past it.
func TestTakeFilteredEventsMoveTheCursor(t *testing.T) {
	f, _ := ParseFilter([]string{"w1"}, nil)
	s := newSub(4, t0, true, f)
	s.pos = Cursor{"local": 0}
	es := events("local", t0, 1, 2, 3)
	es[2].Worker = "w1"
	got := s.take(item{host: "local", after: 0, events: es, next: 3})
	if len(got) != 1 || got[0].cursor != "3" || got[0].event.ID != 3 {
		t.Fatalf("frames %+v", got)
	}
}
