package swarm

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/state/eventlog"
	"github.com/swarm-dev/swarm/swarm/remote"
	"github.com/swarm-dev/swarm/swarm/report"
	"github.com/swarm-dev/swarm/swarm/serve/stream"
)

// Which events `swarm events` shows, decided from its flags alone: where each machine's
// events start (--since), and the filters (--worker, --kind). Ids are each machine's own, so
// a place to resume from is an id per machine: a bare ID is the machine read (this one, or
// the one --host names), HOST:ID another's. A machine given no id starts at --since TIME, or
// at its first event kept.

// eventsQuery is what --since, --worker and --kind ask for.
type eventsQuery struct {
	after  map[string]int64 // machine (remote.LocalName for this one) -> the id its events start after
	since  time.Time        // for a machine without an id: its events from then on (zero: all)
	filter stream.Filter    // --worker and --kind, as the event stream reads them
}

// parseEventsQuery reads the flags; read is the machine a bare ID belongs to.
func parseEventsQuery(since, workers, kinds []string, read string, now time.Time) (eventsQuery, error) {
	q := eventsQuery{after: map[string]int64{}}
	for _, s := range since {
		if err := q.addSince(strings.TrimSpace(s), read, now); err != nil {
			return q, err
		}
	}
	f, err := stream.ParseFilter(workers, kinds)
	var fe *stream.FilterError
	switch {
	case errors.As(err, &fe) && fe.Field == "kind":
		return q, fail("invalid --kind '%s' (a kind like loop.done, or its first word: loop)", fe.Value)
	case errors.As(err, &fe):
		return q, fail("--worker %s: %w", fe.Value, fe.Err)
	case err != nil:
		return q, fail("%w", err)
	}
	q.filter = f
	return q, nil
}

// addSince reads one --since: an ID, HOST:ID, or a time (report.ParseSince: 2h, 2d, 18:00, a
// date, RFC 3339).
func (q *eventsQuery) addSince(s, read string, now time.Time) error {
	if id, err := strconv.ParseInt(s, 10, 64); err == nil {
		return q.addID(read, id, s)
	}
	if t, err := report.ParseSince(s, now, time.Local); err == nil {
		if !q.since.IsZero() {
			return fail("--since %s: a time is given already (one time, and an ID per machine)", s)
		}
		q.since = t
		return nil
	}
	if host, n, ok := strings.Cut(s, ":"); ok {
		id, err := strconv.ParseInt(n, 10, 64)
		if err == nil && (host == remote.LocalName || remote.CheckName(host) == nil) {
			return q.addID(host, id, s)
		}
	}
	return fail("invalid --since '%s' (an event's id like 41, HOST:ID like box:17, a duration like 2h, a time like 18:00 or 2026-05-01T18:00:00Z)", s)
}

func (q *eventsQuery) addID(host string, id int64, s string) error {
	if id < 0 {
		return fail("--since %s: an id is not negative", s)
	}
	if _, dup := q.after[host]; dup {
		return fail("--since %s: %s has an id already", s, host)
	}
	q.after[host] = id
	return nil
}

// afterFor is the id a machine's events start after.
func (q eventsQuery) afterFor(host string) int64 { return q.after[host] }

// keeps reports whether the event, of the machine host, is one the query asks for.
func (q eventsQuery) keeps(host string, e eventlog.Event) bool {
	if _, byID := q.after[host]; !byID && !q.since.IsZero() && e.Time.Before(q.since) {
		return false
	}
	e.Host = host
	return q.filter.Keeps(e)
}

// hostsNamed are the hosts --since and --worker name, this machine aside.
func (q eventsQuery) hostsNamed() []string {
	hosts := q.filter.Hosts()
	for h := range q.after {
		hosts = append(hosts, h)
	}
	slices.Sort(hosts)
	hosts = slices.Compact(hosts)
	return slices.DeleteFunc(hosts, func(h string) bool { return h == "" || h == remote.LocalName })
}

// kept are the events of the machine host the query keeps, each marked with its host.
func (q eventsQuery) kept(host string, es []eventlog.Event) []eventlog.Event {
	var out []eventlog.Event
	for _, e := range es {
		if q.keeps(host, e) {
			e.Host = host
			out = append(out, e)
		}
	}
	return out
}

// mergeByTime merges the machines' events into one list by time; each machine's keep their
// order (a clock stepping back never puts an event before one with a smaller id), and at the
// same time the earlier list's come first.
func mergeByTime(parts [][]eventlog.Event) []eventlog.Event {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]eventlog.Event, 0, n)
	heads := make([]int, len(parts))
	for len(out) < n {
		pick := -1
		for i, p := range parts {
			if heads[i] < len(p) && (pick < 0 || p[heads[i]].Time.Before(parts[pick][heads[pick]].Time)) {
				pick = i
			}
		}
		out = append(out, parts[pick][heads[pick]])
		heads[pick]++
	}
	return out
}
