package stream

import (
	"context"
	"time"

	"github.com/swarm-dev/swarm/state/eventlog"
	"github.com/swarm-dev/swarm/swarm/remote"
)

// Hosts is how the stream reaches the other machines: what `swarm events` asks them
// (`host __events`), given by the command that serves the stream.
type Hosts interface {
	// Names are the hosts recorded now; while there are none, no host is asked anything.
	Names() []string
	// Events asks every recorded host for its events: those after the id after gives it, or,
	// for a host after has no id of, those from since on. A host that does not answer within
	// its time says so in its Err. Events returns soon once ctx is done.
	Events(ctx context.Context, after map[string]int64, since time.Time) []HostEvents
}

// HostEvents is one host's answer: its new events, oldest first, and the id to ask after next
// (the last it looked at, kept or not); or why it gave none.
type HostEvents struct {
	Host   string
	Events []eventlog.Event
	Next   int64
	Err    error
}

// took hands the hosts' answers to every subscriber, and moves the ids the hub asks after on,
// unless a subscriber moved one back while the hosts were asked: then it stays, and the
// hosts are asked again from there.
func (h *hub) took(ctx context.Context, a *activation, got answer) {
	h.mu.Lock()
	a.asking = false
	again := a.again
	a.again = false
	if h.on == a {
		for _, r := range got.replies {
			again = h.tookHost(a, got.after, r) || again
		}
	}
	h.mu.Unlock()
	if again {
		h.ask(ctx, a)
	}
}

// tookHost hands one host's answer on; it reports whether the host is to be asked again at
// once (its id was moved back meanwhile).
func (h *hub) tookHost(a *activation, asked map[string]int64, r HostEvents) bool {
	if r.Err != nil {
		h.cfg.Logf("event stream: %v", r.Err)
		return false
	}
	if remote.CheckName(r.Host) != nil {
		return false
	}
	before, had := asked[r.Host]
	now, has := a.hostPos[r.Host]
	moved := had != has || before != now
	if !moved {
		a.hostPos[r.Host] = max(r.Next, now)
	}
	after := int64(-1)
	if had {
		after = before
	}
	es := make([]eventlog.Event, 0, len(r.Events))
	last := after
	for _, e := range r.Events {
		if e.ID > last { // an answer is untrusted: in order, after what was asked, bounded
			e = eventlog.Bounded(e)
			e.Host = r.Host
			es = append(es, e)
			last = e.ID
		}
	}
	if len(es) > 0 || r.Next > after {
		h.fanLocked(item{host: r.Host, after: after, events: es, next: max(r.Next, last)})
	}
	return moved
}
