package swarm

import (
	"cmp"
	"context"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/state/eventlog"
	"github.com/swarm-dev/swarm/swarm/remote"
)

// eventsOptions are the arguments of `swarm events`.
type eventsOptions struct {
	Follow  bool
	Since   []string
	Workers []string
	Kinds   []string
	Format  string
	Host    string
	Timeout time.Duration // each host's, to answer
	Now     time.Time
}

func (o eventsOptions) check() error {
	if _, err := checkFormat(cmp.Or(o.Format, "text"), "text", "json"); err != nil {
		return err
	}
	if o.Host != "" && o.Host != remote.LocalName {
		if err := remote.CheckName(o.Host); err != nil {
			return wrapped(ExitNotFound, "%w", err)
		}
	}
	_, err := o.query()
	return err
}

// query is what the flags ask for; a bare --since ID is the machine --host names, else this.
func (o eventsOptions) query() (eventsQuery, error) {
	read := cmp.Or(o.Host, remote.LocalName)
	return parseEventsQuery(o.Since, o.Workers, o.Kinds, read, o.Now)
}

func eventsCommand() *cli.Command {
	return &cli.Command{
		Name:  "events",
		Usage: "what happened to the workers and their loops, from the event log: list it or follow it",
		Description: `Every state directory keeps a log of typed events (swarm guide events): workers spawned
and ended, iterations and how they ended, loops done, failed, paused or parked on a usage
limit, the test gate, checks, a person needed and answered, a budget passed, landings,
hosts lost and back. events prints them oldest first, a line each: #ID TIME HOST WORKER KIND
and the details; --format json prints each as one JSON object per line (id, time, kind, host,
worker, iteration, how, reason, what, detail, by, cost_usd, commit, branch).

With hosts added (swarm host add), every host's events come too, merged by time, each with
its host (this machine's is "local"); a host that does not answer is said on stderr.

--since ID: the events after that id. Ids are each machine's own: a bare ID is this
machine's (or --host's), HOST:ID a host's; a machine given no id starts at --since TIME (12h,
2d, 18:00, a date, RFC 3339), else at its oldest event kept. --follow then prints new events
as they come (this machine's at once, the hosts' within 3 seconds) until Ctrl-C, and exits
0. To resume, give the last id seen of every machine: nothing is missed or repeated.

Examples:
   swarm events
   swarm events --since 2h --worker w1
   swarm events --kind loop --kind person.needed
   swarm events --follow --format json
   swarm events --since 41                 # the events after #41 of this machine
   swarm events --since local:41 --since box:17 --follow`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "then print new events as they come, until Ctrl-C"},
			&cli.StringSliceFlag{Name: "since", Usage: "after an id (ID, HOST:ID) or from a time (2h, 18:00, RFC 3339); repeat for each machine"},
			&cli.StringSliceFlag{Name: "worker", Usage: "only this worker's events (NAME or NAME@HOST); repeatable"},
			&cli.StringSliceFlag{Name: "kind", Usage: "only events of this kind (loop.done) or family (loop); repeatable"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text, or json: one event per line"},
			&cli.StringFlag{Name: "host", Usage: "only this host's events (local: this machine's)"},
			&cli.Float64Flag{Name: "timeout", Usage: "seconds each host has to answer", Value: 5},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError("swarm events [--follow] [--since ID|TIME] [--worker NAME] [--kind KIND] (a worker's events: --worker NAME)")
			}
			o := eventsOptions{Follow: c.Bool("follow"), Since: c.StringSlice("since"), Workers: c.StringSlice("worker"),
				Kinds: c.StringSlice("kind"), Format: c.String("format"), Host: c.String("host"),
				Timeout: seconds(c.Float64("timeout")), Now: time.Now()}
			return withEnv(c, o.check, func(e *env) error { return runEvents(e, o) })
		},
	}
}

// eventsRun is one run of `swarm events`: what it asks for, of which machines, and where
// each machine's events stand.
type eventsRun struct {
	e     *env
	o     eventsOptions
	q     eventsQuery
	local bool          // this machine's events are read
	hosts []remote.Host // the hosts asked
	next  map[string]int64
	down  map[string]bool // hosts that did not answer when last asked
	print *eventsPrinter
}

func runEvents(e *env, o eventsOptions) error {
	q, err := o.query()
	if err != nil {
		return err
	}
	run := &eventsRun{e: e, o: o, q: q, next: map[string]int64{}, down: map[string]bool{},
		print: &eventsPrinter{out: e.stdout, json: o.Format == "json", width: fitOn(e.stdout).width}}
	if run.hosts, run.local, err = eventsMachines(e, o.Host, q); err != nil {
		return err
	}
	for _, h := range run.hosts {
		run.next[h.Name] = q.afterFor(h.Name)
	}
	var r *eventlog.Reader
	var watch *state.Watch
	if run.local {
		if o.Follow {
			// Watched before the first read: an event written in between wakes the follow.
			watch = state.WatchFiles([]string{e.Dir().Root}, isEventsFile)
			defer watch.Close()
		}
		r = eventlog.Log{Root: e.Dir().Root}.Reader(q.afterFor(remote.LocalName))
		defer r.Close()
	}
	if !o.Follow {
		n, err := run.first(context.Background(), r)
		if err == nil && n == 0 && !run.print.json {
			_, err = io.WriteString(e.stdout, "no events\n")
		}
		return err
	}
	// Ctrl-C and SIGTERM end a follow quietly, while the hosts are first asked too.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err := run.first(ctx, r); err != nil || ctx.Err() != nil {
		return err
	}
	return run.follow(ctx, r, watch)
}

// eventsMachines are the hosts to ask and whether this machine's events are read. A host
// named in --since HOST:ID or --worker NAME@HOST must be one.
func eventsMachines(e *env, host string, q eventsQuery) ([]remote.Host, bool, error) {
	reg := remote.RegistryOf(e.Dir().Root)
	for _, h := range q.hostsNamed() {
		if _, err := reg.Get(h); err != nil {
			return nil, false, wrapped(ExitNotFound, "%w", err)
		}
	}
	switch host {
	case remote.LocalName:
		return nil, true, nil
	case "":
		var hosts []remote.Host
		for _, h := range reg.All(e.warnErr) {
			if q.filter.Asks(h.Name) {
				hosts = append(hosts, h)
			}
		}
		return hosts, q.filter.Asks(remote.LocalName), nil
	}
	h, err := reg.Get(host)
	if err != nil {
		return nil, false, wrapped(ExitNotFound, "%w", err)
	}
	return []remote.Host{h}, false, nil
}

// isEventsFile names the log's files: the log and the one it moved to.
func isEventsFile(name string) bool { return strings.HasPrefix(name, "events.jsonl") }

// first prints what is there: this machine's events and every host's, merged by time; it
// returns how many. Once ctx is done it waits for the hosts no longer, and prints nothing.
func (run *eventsRun) first(ctx context.Context, r *eventlog.Reader) (int, error) {
	all, err := run.collect(ctx, r)
	if err != nil {
		return 0, err
	}
	return len(all), run.print.print(all)
}

// collect is what is there: this machine's events and every host's, merged by time.
func (run *eventsRun) collect(ctx context.Context, r *eventlog.Reader) ([]eventlog.Event, error) {
	asked := make(chan []hostEvents, 1)
	go func() { asked <- run.askHosts() }()
	var parts [][]eventlog.Event
	if r != nil {
		es, err := r.Next()
		if err != nil {
			return nil, fail("cannot read the event log: %w", err)
		}
		parts = append(parts, run.q.kept(remote.LocalName, es))
	}
	select {
	case <-ctx.Done():
		return nil, nil
	case answers := <-asked:
		for _, got := range answers {
			parts = append(parts, run.took(got))
		}
	}
	return mergeByTime(parts), nil
}

// askHosts asks every host at once for its events after the id it last gave.
func (run *eventsRun) askHosts() []hostEvents {
	root := run.e.Dir().Root
	return askEach(run.hosts, func(h remote.Host) hostEvents {
		return askHostEvents(root, h, run.q, run.next[h.Name], run.o.Timeout)
	})
}

// took notes what a host gave (or that it did not answer, said once until it answers again)
// and returns its events.
func (run *eventsRun) took(got hostEvents) []eventlog.Event {
	if got.problem != nil {
		if !run.down[got.host] {
			run.e.warnf("%s (its events are not shown)", hostProblem(got.problem))
		}
		run.down[got.host] = true
	} else if run.down[got.host] {
		run.e.warnf("host %s answers again", got.host)
		run.down[got.host] = false
	}
	run.next[got.host] = max(run.next[got.host], got.next)
	return got.events
}

// follow prints new events as they come until Ctrl-C or SIGTERM: this machine's when the
// kernel tells the log changed (within a second where it cannot tell), the hosts' every
// hostEventsPoll. Nothing runs while nothing happens but that poll of the hosts.
func (run *eventsRun) follow(ctx context.Context, r *eventlog.Reader, watch *state.Watch) error {
	var changed <-chan struct{}
	if watch != nil {
		changed = watch.Changed()
	}
	var tick <-chan time.Time
	if len(run.hosts) > 0 {
		t := time.NewTicker(hostEventsPoll)
		defer t.Stop()
		tick = t.C
	}
	answers := make(chan []hostEvents, 1)
	asking := false
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
			es, err := r.Next()
			if err != nil {
				return fail("cannot read the event log: %w", err)
			}
			if err := run.print.print(run.q.kept(remote.LocalName, es)); err != nil {
				return nil // no one reads any more
			}
		case <-tick:
			if !asking {
				asking = true
				go func() { answers <- run.askHosts() }()
			}
		case got := <-answers:
			asking = false
			var parts [][]eventlog.Event
			for _, g := range got {
				parts = append(parts, run.took(g))
			}
			if err := run.print.print(mergeByTime(parts)); err != nil {
				return nil
			}
		}
	}
}
