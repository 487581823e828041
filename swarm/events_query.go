package swarm

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/state/eventlog"
	"github.com/swarm-dev/swarm/swarm/remote"
	"github.com/swarm-dev/swarm/swarm/report"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// Which events `swarm events` shows, decided from its flags alone: where each machine's
// events start (--since), and the filters (--worker, --kind). Ids are each machine's own, so
// a place to resume from is an id per machine: a bare ID is the machine read (this one, or
// the one --host names), HOST:ID another's. A machine given no id starts at --since TIME, or
// at its first event kept.

// eventsQuery is what --since, --worker and --kind ask for.
type eventsQuery struct {
	after   map[string]int64 // machine (remote.LocalName for this one) -> the id its events start after
	since   time.Time        // for a machine without an id: its events from then on (zero: all)
	workers []workerPick
	kinds   []string
}

// workerPick is a --worker: a worker's name, and the host it is on ("" for any).
type workerPick struct{ name, host string }

// kindRE is the form of a --kind: an event's kind (loop.done) or the word before its dot (loop).
var kindRE = regexp.MustCompile(`^[a-z][a-z_]*(\.[a-z][a-z_]*)?$`)

// parseEventsQuery reads the flags; read is the machine a bare ID belongs to.
func parseEventsQuery(since, workers, kinds []string, read string, now time.Time) (eventsQuery, error) {
	q := eventsQuery{after: map[string]int64{}, kinds: kinds}
	for _, s := range since {
		if err := q.addSince(strings.TrimSpace(s), read, now); err != nil {
			return q, err
		}
	}
	for _, w := range workers {
		name, host, onHost := strings.Cut(w, "@")
		if err := worker.ValidateName(name); err != nil {
			return q, fail("--worker: %w", err)
		}
		if onHost && host != remote.LocalName {
			if err := remote.CheckName(host); err != nil {
				return q, fail("--worker %s: %w", w, err)
			}
		}
		q.workers = append(q.workers, workerPick{name: name, host: host})
	}
	for _, k := range kinds {
		if !kindRE.MatchString(k) {
			return q, fail("invalid --kind '%s' (a kind like loop.done, or its first word: loop)", k)
		}
	}
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
	if len(q.kinds) > 0 && !anyKind(q.kinds, e.Kind) {
		return false
	}
	if len(q.workers) == 0 {
		return true
	}
	for _, w := range q.workers {
		if w.name == e.Worker && (w.host == "" || w.host == host) {
			return true
		}
	}
	return false
}

// asks reports whether any event of the machine host can be kept: a --worker of another host
// alone leaves nothing to ask it for.
func (q eventsQuery) asks(host string) bool {
	if len(q.workers) == 0 {
		return true
	}
	for _, w := range q.workers {
		if w.host == "" || w.host == host {
			return true
		}
	}
	return false
}

// hostsNamed are the hosts --since and --worker name, this machine aside.
func (q eventsQuery) hostsNamed() []string {
	var hosts []string
	for h := range q.after {
		hosts = append(hosts, h)
	}
	for _, w := range q.workers {
		hosts = append(hosts, w.host)
	}
	slices.Sort(hosts)
	return slices.DeleteFunc(hosts, func(h string) bool { return h == "" || h == remote.LocalName })
}

// workersOn are the --worker names that can match on host, for that host to filter by.
func (q eventsQuery) workersOn(host string) []string {
	var names []string
	for _, w := range q.workers {
		if w.host == "" || w.host == host {
			names = append(names, w.name)
		}
	}
	return names
}

func anyKind(kinds []string, kind string) bool {
	for _, k := range kinds {
		if k == kind || strings.HasPrefix(kind, k+".") {
			return true
		}
	}
	return false
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
