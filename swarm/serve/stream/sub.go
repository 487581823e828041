package stream

import (
	"time"

	"github.com/swarm-dev/swarm/state/eventlog"
)

// item is what the hub hands a subscriber: one machine's new events in order, with the id they
// were read after and the last id looked at; or a keep-alive.
type item struct {
	host   string           // the machine (remote.LocalName for this one)
	after  int64            // the id the events were read after; -1: asked by time, from no id
	events []eventlog.Event // Host set; shared by every subscriber, never changed
	next   int64            // the last id looked at (kept or not)
	whole  bool             // read for this subscriber from its own place: next is its place after
	ping   bool
}

// frame is one event as a subscriber is sent it: the event and its cursor.
type frame struct {
	cursor string
	event  eventlog.Event
}

// sub is one subscriber: where it stands in every machine's log, and what it asked for.
type sub struct {
	ch   chan item
	gone chan struct{} // closed when the hub lets go of it (too slow)
	pos  Cursor
	// since is where a machine it has no id of starts: its events from then on.
	since time.Time
	// marks: it started at the end, so a host's place the hub tells it is its own.
	marks  bool
	filter Filter
}

func newSub(buffer int, since time.Time, marks bool, f Filter) *sub {
	return &sub{ch: make(chan item, buffer), gone: make(chan struct{}), pos: Cursor{},
		since: since, marks: marks, filter: f}
}

// take moves the subscriber past a part and returns the frames it is to be sent. A part read
// from further on than where the subscriber stands is passed over: the hub asks again from
// the subscriber's place, and that part comes later. Events it was given already are passed
// over; events of a machine it has no place in yet are kept from its since on.
func (s *sub) take(it item) []frame {
	p, has := s.pos[it.host]
	if has && (it.after < 0 || it.after > p) {
		return nil
	}
	byTime := !has
	var out []frame
	for _, e := range it.events {
		if has && e.ID <= p {
			continue
		}
		p, has = e.ID, true
		s.pos[it.host] = p
		if byTime && e.Time.Before(s.since) {
			continue
		}
		if s.filter.Keeps(e) {
			out = append(out, frame{cursor: s.pos.String(), event: e})
		}
	}
	if it.next > p && (!byTime || s.marks || it.whole) {
		s.pos[it.host] = it.next
	}
	return out
}
