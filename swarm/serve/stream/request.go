package stream

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/swarm-dev/swarm/state/eventlog"
	"github.com/swarm-dev/swarm/swarm/remote"
	"github.com/swarm-dev/swarm/swarm/report"
)

// request is what a subscriber asks for.
type request struct {
	cursor Cursor    // where it resumes; nil: it starts at the end, or at since
	since  time.Time // a machine the cursor does not name starts there; zero: at the end
	filter Filter
}

// parseRequest reads the Last-Event-ID header or ?after= (a browser's first connection cannot
// set headers), ?since= (as swarm events --since reads a time: 2h, 18:00, RFC 3339, ...),
// ?worker= and ?kind=.
func parseRequest(r *http.Request, now time.Time) (request, error) {
	var req request
	q := r.URL.Query()
	c := r.Header.Get("Last-Event-ID")
	if c == "" {
		c = q.Get("after")
	}
	if c != "" {
		cur, err := ParseCursor(c)
		if err != nil {
			return req, fmt.Errorf("invalid cursor: %w", err)
		}
		req.cursor = cur
	}
	if s := q.Get("since"); s != "" {
		t, err := report.ParseSince(s, now, time.Local)
		if err != nil {
			return req, fmt.Errorf("invalid since %s (a duration like 2h, a time like 18:00 or 2026-05-01T18:00:00Z)", quote(s))
		}
		req.since = t
	}
	f, err := ParseFilter(q["worker"], q["kind"])
	if err != nil {
		return req, err
	}
	req.filter = f
	return req, nil
}

// backlog is what the subscriber missed before it joined: this machine's events after its
// cursor (or from its since) up to last, where the hub took over; and, with a since, the
// hosts' events from then on (those its cursor names the hub asks for again itself).
func (s *Server) backlog(ctx context.Context, sb *sub, req request, last int64) []item {
	var out []item
	from, byID := req.cursor[remote.LocalName]
	if byID && from < last || !byID && !req.since.IsZero() {
		es, err := s.hub.log.Since(from, 0)
		if err != nil {
			s.cfg.Logf("event stream: cannot read the event log: %v", err)
			return nil
		}
		kept := es[:0]
		for _, e := range es {
			if e.ID <= last {
				e.Host = remote.LocalName
				kept = append(kept, e)
			}
		}
		after := from
		if !byID {
			after = -1
		}
		out = append(out, item{host: remote.LocalName, after: after, events: kept, next: last, whole: true})
	}
	if req.since.IsZero() || s.cfg.Hosts == nil || len(s.cfg.Hosts.Names()) == 0 {
		return out
	}
	for _, r := range s.cfg.Hosts.Events(ctx, map[string]int64{}, req.since) {
		if r.Err != nil || remote.CheckName(r.Host) != nil {
			if r.Err != nil && !errors.Is(r.Err, context.Canceled) {
				s.cfg.Logf("event stream: %v", r.Err)
			}
			continue
		}
		es := make([]eventlog.Event, 0, len(r.Events))
		for _, e := range r.Events {
			e = eventlog.Bounded(e)
			e.Host = r.Host
			es = append(es, e)
		}
		out = append(out, item{host: r.Host, after: -1, events: es, next: r.Next, whole: true})
	}
	return out
}
