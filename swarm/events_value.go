package swarm

import (
	"context"
	"strconv"

	"github.com/swarm-dev/swarm/state/eventlog"
	"github.com/swarm-dev/swarm/swarm/remote"
)

// eventsAnswer is the events a query found, and where to resume after them: this machine's
// last id read ("41"), with hosts every machine's ("41,box:17,gpu:3"), as --since (and the
// stream's Last-Event-ID) take it.
type eventsAnswer struct {
	Events []eventlog.Event `json:"events"`
	Cursor string           `json:"cursor"`
}

// eventsValue is what `swarm events --format json` would print for o, at once (GET /api/v1/events).
func eventsValue(ctx context.Context, e *env, o eventsOptions) (eventsAnswer, error) {
	q, err := o.query()
	if err != nil {
		return eventsAnswer{}, err
	}
	run := &eventsRun{e: e, o: o, q: q, next: map[string]int64{}, down: map[string]bool{}}
	if run.hosts, run.local, err = eventsMachines(e, o.Host, q); err != nil {
		return eventsAnswer{}, err
	}
	for _, h := range run.hosts {
		run.next[h.Name] = q.afterFor(h.Name)
	}
	var r *eventlog.Reader
	if run.local {
		r = eventlog.Log{Root: e.Dir().Root}.Reader(q.afterFor(remote.LocalName))
		defer r.Close()
	}
	all, err := run.collect(ctx, r)
	if err != nil {
		return eventsAnswer{}, err
	}
	if all == nil {
		all = []eventlog.Event{}
	}
	return eventsAnswer{Events: all, Cursor: run.cursor(r)}, nil
}

// cursor is where every machine read stands.
func (run *eventsRun) cursor(r *eventlog.Reader) string {
	c := ""
	if r != nil {
		c = strconv.FormatInt(r.Last(), 10)
	}
	for _, h := range run.hosts {
		if c != "" {
			c += ","
		}
		c += h.Name + ":" + strconv.FormatInt(run.next[h.Name], 10)
	}
	return c
}
