package swarm

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/state/eventlog"
	"github.com/swarm-dev/swarm/swarm/remote"
)

// The hosts' events: each host gives its own log's events after an id (`host __events`), a
// page at a time, filtered there; this side takes them in as untrusted (acceptEvents) and
// marks each with its host. A follow asks every host again every hostEventsPoll with the
// id it last got: hosts are not watched, their events come that much later.

// hostEventsPoll is how often a follow asks the hosts for their new events.
const hostEventsPoll = 3 * time.Second

// hostEventsPage is the most events a host gives in one answer: a page stays far below
// remote.MaxReply whatever its events say.
const hostEventsPage = 1000

// eventsReply is a host's answer to `host __events`: its events, the id to ask after next
// time (the last it looked at, kept or not), and whether more are there than the page held.
type eventsReply struct {
	Events []eventlog.Event `json:"events"`
	Next   int64            `json:"next"`
	More   bool             `json:"more"`
}

func hostEventsCommand() *cli.Command {
	return &cli.Command{
		Name: "__events", Hidden: true, Usage: "this machine's events after an id, filtered, as JSON (for another machine's swarm)",
		Flags: []cli.Flag{
			&cli.Int64Flag{Name: "after", Usage: "the id the events start after"},
			&cli.StringFlag{Name: "since", Usage: "only events from then on (RFC 3339)"},
			&cli.StringSliceFlag{Name: "worker", Usage: "only this worker's events"},
			&cli.StringSliceFlag{Name: "kind", Usage: "only events of this kind (or its first word)"},
			&cli.IntFlag{Name: "max", Value: hostEventsPage, Usage: "at most this many events"},
		},
		Action: func(c *cli.Context) error {
			q, err := parseEventsQuery(nil, c.StringSlice("worker"), c.StringSlice("kind"), remote.LocalName, time.Now())
			if err != nil {
				return err
			}
			if s := c.String("since"); s != "" {
				if q.since, err = time.Parse(time.RFC3339Nano, s); err != nil {
					return fail("invalid --since '%s' (RFC 3339)", s)
				}
			}
			return withEnv(c, nil, func(e *env) error {
				r, err := eventsPage(eventlog.Log{Root: e.Dir().Root}, q, c.Int64("after"), max(c.Int("max"), 1))
				if err != nil {
					return fail("%w", err)
				}
				return writeJSONLine(e.stdout, r)
			})
		},
	}
}

// eventsPage is the events of log after id that q keeps, at most n.
func eventsPage(log eventlog.Log, q eventsQuery, after int64, n int) (eventsReply, error) {
	all, err := log.Since(after, 0)
	if err != nil {
		return eventsReply{}, err
	}
	r := eventsReply{Events: []eventlog.Event{}, Next: after}
	for _, e := range all {
		if len(r.Events) == n {
			r.More = true
			break
		}
		r.Next = e.ID
		if q.keeps(remote.LocalName, e) {
			r.Events = append(r.Events, e)
		}
	}
	return r, nil
}

// hostEvents is what one host gave: its events, marked with its name, and the id to ask
// after next; or why it gave none.
type hostEvents struct {
	host    string
	events  []eventlog.Event
	next    int64
	problem error
}

// askHostEvents asks a host for its events after id, page after page, all within limit.
func askHostEvents(root string, h remote.Host, q eventsQuery, after int64, limit time.Duration) hostEvents {
	got := hostEvents{host: h.Name, next: after}
	deadline := time.Now().Add(limit)
	for {
		args := []string{"host", "__events", "--after", strconv.FormatInt(got.next, 10), "--max", strconv.Itoa(hostEventsPage)}
		if _, byID := q.after[h.Name]; !byID && !q.since.IsZero() {
			args = append(args, "--since", q.since.UTC().Format(time.RFC3339Nano))
		}
		for _, w := range q.filter.WorkersOn(h.Name) {
			args = append(args, "--worker", w)
		}
		for _, k := range q.filter.Kinds() {
			args = append(args, "--kind", k)
		}
		out, err := askWithin(root, h, time.Until(deadline), args...)
		var re *remote.RemoteError
		if errors.As(err, &re) && strings.Contains(re.Said, "'__events'") {
			err = fmt.Errorf("host %s runs a swarm that keeps no event log: install this swarm there (swarm host add %s ADDRESS --install copies it)", h.Name, h.Name)
		}
		if err != nil {
			got.problem = err
			return got
		}
		r, err := acceptEvents(h.Name, out, got.next)
		if err != nil {
			got.problem = err
			return got
		}
		got.events = append(got.events, q.kept(h.Name, r.Events)...)
		got.next = r.Next
		if !r.More {
			return got
		}
	}
}

// acceptEvents reads a host's answer, untrusted: its events must come after the id asked
// for, in order, and its next id must not go back; every text is bounded as the log bounds
// its own. An answer that moves nothing forward yet says there is more is refused (it would
// be asked for again without end).
func acceptEvents(host string, data []byte, after int64) (eventsReply, error) {
	var r eventsReply
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("host %s did not answer with its events: %v", host, err)
	}
	kept := r.Events[:0]
	last := after
	for _, e := range r.Events {
		if e.ID <= last {
			continue
		}
		last = e.ID
		kept = append(kept, eventlog.Bounded(e))
	}
	r.Events = kept
	if r.Next < last {
		r.Next = last
	}
	if r.More && r.Next <= after {
		return r, fmt.Errorf("host %s says it has more events but gives none after #%d", host, after)
	}
	return r, nil
}
