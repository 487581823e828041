package stream

import (
	"context"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/state/eventlog"
	"github.com/swarm-dev/swarm/swarm/remote"
)

// hub is the one reader of the log for every subscriber. It runs only while someone is
// subscribed (an activation); it reads the log when the kernel says it changed, asks the hosts
// every poll while hosts are recorded, and hands each part to every subscriber without
// waiting: one whose buffer is full is let go.
type hub struct {
	cfg   Config
	log   eventlog.Log
	mu    sync.Mutex
	subs  map[*sub]struct{}
	on    *activation // nil while nobody is subscribed
	wakes atomic.Int64
}

// activation is the hub's life from its first subscriber to its last.
type activation struct {
	stop    chan struct{}
	watch   *state.Watch
	reader  *eventlog.Reader
	started time.Time        // hosts the hub has no id of are asked for their events from then on
	hostPos map[string]int64 // the id each host is next asked after
	hostsOn bool             // the hosts are being asked
	asking  bool             // an ask is under way
	again   bool             // ask again once it is answered (a subscriber wants older events)
	soon    chan struct{}    // ask the hosts now, then every poll
	answers chan answer
}

// answer is what the hosts said to one ask, and the ids they were asked after.
type answer struct {
	after   map[string]int64
	replies []HostEvents
}

func newHub(cfg Config) *hub {
	return &hub{cfg: cfg, log: eventlog.Log{Root: cfg.Root}, subs: map[*sub]struct{}{}}
}

// isEventsFile names the log's files: the log and the one it moves to.
func isEventsFile(name string) bool { return strings.HasPrefix(name, "events.jsonl") }

// join subscribes s from the cursor it gave (nil: none), and returns the id of the last
// event of this machine the hub has read: the subscriber's own reading of the log ends there,
// what is after comes from the hub.
func (h *hub) join(s *sub, cur Cursor) (int64, error) {
	hosts := h.cfg.Hosts != nil && len(h.cfg.Hosts.Names()) > 0
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.on == nil {
		if err := h.startLocked(); err != nil {
			return 0, err
		}
	}
	a := h.on
	h.readLocked(a) // what was written before s joined is not for s from the hub
	last := a.reader.Last()
	rewound := false
	for m, id := range cur {
		s.pos[m] = id
		if p, ok := a.hostPos[m]; m != remote.LocalName && (!ok || id < p) {
			a.hostPos[m], rewound = id, true
		}
	}
	if _, ok := cur[remote.LocalName]; !ok && s.marks {
		s.pos[remote.LocalName] = last
	}
	if s.marks {
		for m, p := range a.hostPos {
			if _, ok := s.pos[m]; !ok {
				s.pos[m] = p
			}
		}
	}
	h.subs[s] = struct{}{}
	if hosts && (rewound || !a.hostsOn) {
		a.hostsOn = true
		nudge(a.soon)
	}
	return last, nil
}

// leave unsubscribes s; the last to leave ends the activation.
func (h *hub) leave(s *sub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		h.stopIfIdleLocked()
	}
}

// subscribers is how many are subscribed.
func (h *hub) subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

func (h *hub) startLocked() error {
	// Watched before the first read: an event written in between wakes the hub.
	watch := state.WatchFiles([]string{h.cfg.Root}, isEventsFile)
	last, err := h.log.LastID()
	if err != nil {
		watch.Close()
		return err
	}
	a := &activation{stop: make(chan struct{}), watch: watch, reader: h.log.Reader(last),
		started: h.cfg.Now(), hostPos: map[string]int64{}, soon: make(chan struct{}, 1),
		answers: make(chan answer)}
	h.on = a
	go h.run(a)
	return nil
}

func (h *hub) stopIfIdleLocked() {
	if len(h.subs) == 0 && h.on != nil {
		close(h.on.stop)
		h.on = nil
	}
}

func nudge(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// run is the activation's one goroutine: it sleeps until the kernel tells of a change to the
// log, the hosts' poll or the keep-alive is due, or the hosts answer.
func (h *hub) run(a *activation) {
	ctx, cancel := context.WithCancel(context.Background())
	defer func() {
		cancel()
		a.watch.Close()
		a.reader.Close()
	}()
	keep := time.NewTicker(h.cfg.KeepAlive)
	defer keep.Stop()
	var poll *time.Ticker
	var tick <-chan time.Time
	for {
		select {
		case <-a.stop:
			if poll != nil {
				poll.Stop()
			}
			return
		case <-a.watch.Changed():
			h.read(a)
		case <-keep.C:
			h.fan(a, item{ping: true})
		case <-a.soon:
			if poll == nil {
				poll = time.NewTicker(h.cfg.Poll)
				tick = poll.C
			}
			h.ask(ctx, a)
		case <-tick:
			h.ask(ctx, a)
		case got := <-a.answers:
			h.took(ctx, a, got)
		}
		h.wakes.Add(1)
	}
}

// read hands what was appended to the log to every subscriber.
func (h *hub) read(a *activation) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.on == a {
		h.readLocked(a)
	}
}

func (h *hub) readLocked(a *activation) {
	before := a.reader.Last()
	es, err := a.reader.Next()
	if err != nil {
		h.cfg.Logf("event stream: cannot read the event log: %v", err)
	}
	if len(es) == 0 {
		return
	}
	for i := range es {
		es[i].Host = remote.LocalName
	}
	h.fanLocked(item{host: remote.LocalName, after: before, events: es, next: a.reader.Last()})
}

func (h *hub) fan(a *activation, it item) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.on == a {
		h.fanLocked(it)
	}
}

// fanLocked hands it to every subscriber; one with no room for it is let go, never waited for.
func (h *hub) fanLocked(it item) {
	for s := range h.subs {
		select {
		case s.ch <- it:
		default:
			delete(h.subs, s)
			close(s.gone)
		}
	}
	h.stopIfIdleLocked()
}

// ask asks the hosts for their events after the ids the hub holds, unless an ask is under
// way: then it is asked again once that one is answered.
func (h *hub) ask(ctx context.Context, a *activation) {
	h.mu.Lock()
	if a.asking {
		a.again = true
		h.mu.Unlock()
		return
	}
	a.asking = true
	after, since := maps.Clone(a.hostPos), a.started
	h.mu.Unlock()
	go func() {
		replies := h.cfg.Hosts.Events(ctx, after, since)
		select {
		case a.answers <- answer{after: after, replies: replies}:
		case <-ctx.Done():
		}
	}()
}
