package swarm

import (
	"context"
	"net/http"
	"time"

	"github.com/swarm-dev/swarm/swarm/remote"
	"github.com/swarm-dev/swarm/swarm/serve/stream"
)

// eventStream is the event stream of the state directory root (/api/v1/events/stream): this
// machine's log, and the hosts' events asked as `swarm events --follow` asks them.
func eventStream(root string, logf func(string, ...any)) http.Handler {
	return stream.New(stream.Config{Root: root, Hosts: streamHosts{root: root, limit: 5 * time.Second},
		Poll: hostEventsPoll, Logf: logf})
}

// streamHosts gives the stream the hosts recorded in the state directory and their events
// (`host __events`), each host given limit to answer.
type streamHosts struct {
	root  string
	limit time.Duration
}

func (s streamHosts) Names() []string {
	var names []string
	for _, h := range remote.RegistryOf(s.root).All(nil) {
		names = append(names, h.Name)
	}
	return names
}

func (s streamHosts) Events(ctx context.Context, after map[string]int64, since time.Time) []stream.HostEvents {
	q := eventsQuery{after: after, since: since}
	answers := askEach(remote.RegistryOf(s.root).All(nil), func(h remote.Host) hostEvents {
		if err := ctx.Err(); err != nil {
			return hostEvents{host: h.Name, problem: err}
		}
		return askHostEvents(s.root, h, q, after[h.Name], s.limit)
	})
	out := make([]stream.HostEvents, len(answers))
	for i, a := range answers {
		out[i] = stream.HostEvents{Host: a.host, Events: a.events, Next: a.next, Err: a.problem}
	}
	return out
}
