package swarm

import (
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/remote"
	"github.com/swarm-dev/swarm/swarm/report"
)

// `swarm report`: what happened while no one watched, on this machine and every host.

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "what happened while you were away: each worker's iterations, time, cost, checks, landings and what needs you",
		Description: `Reports every worker that did something in the time asked about (by default the last 24
hours), on this machine and every host: its loop's iterations and how each ended (done, ended,
failed with its reason, timed out, hung, rolled back, checks failed, usage limit, stopped),
the time it worked against the time it waited (for a usage limit, a backoff, you), what it
cost in money and tokens, its checks, where its branch stands in swarm land's queue and why
it was sent back, what waits for you now, and the totals. It reads only what swarm records
as it goes; a worker whose records are damaged is named on stderr and reported from what
can be read. An iteration counts, whole, in the window it ended in.

--since takes a duration back from now (12h, 90m, 2d), a time of day (18:00: the last time
it was 18:00), a date (2024-05-01: its midnight) or a date and time (2024-05-01 18:00).

Examples:
   swarm report                    # the last 24 hours
   swarm report --since 18:00      # since six last evening
   swarm report --since 3d --host local
   swarm report --format json | jq '.workers[] | select(.needs_person)'
   swarm report --format json | jq '.totals.cost_usd'

With hosts added (swarm host add), each is asked at once for its own report, within
--timeout; its workers come with their host, and a host that does not answer is a line
saying so.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "since", Usage: "from when: a duration back (12h, 2d), a time of day (18:00) or a date and time", Value: "24h"},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "text or json", Value: "text"},
			&cli.StringFlag{Name: "host", Usage: "only this host's workers (local: this machine's)"},
			&cli.Float64Flag{Name: "timeout", Usage: "seconds each host has to answer", Value: 10},
		},
		Action: func(c *cli.Context) error {
			o := reportOptions{Since: c.String("since"), Format: c.String("format"), Host: c.String("host"),
				Timeout: seconds(c.Float64("timeout")), Now: time.Now()}
			return withEnv(c, o.check, func(e *env) error { return runReport(e, o) })
		},
	}
}

// reportOptions are the flags of `swarm report`.
type reportOptions struct {
	Since, Format, Host string
	Timeout             time.Duration
	Now                 time.Time
}

func (o reportOptions) check() error {
	if _, err := checkFormat(o.Format, "text", "json"); err != nil {
		return err
	}
	if _, err := report.ParseSince(o.Since, o.Now, time.Local); err != nil {
		return fail("%v", err)
	}
	return notNegative(o.Timeout.Seconds(), "--timeout")
}

func runReport(e *env, o reportOptions) error {
	r, err := reportValue(e, o)
	if err != nil {
		return err
	}
	if o.Format == "json" {
		return printJSON(e, r)
	}
	return report.Text(e.stdout, r, reportWidth(e), time.Local)
}

// reportValue is the report `report --format json` prints (the records it could not read
// warned of).
func reportValue(e *env, o reportOptions) (report.Report, error) {
	since, _ := report.ParseSince(o.Since, o.Now, time.Local)
	win := report.Window{Since: since, Now: o.Now}
	hosts, err := reportHosts(e, o.Host)
	if err != nil {
		return report.Report{}, err
	}
	// The hosts are asked first, and this machine's records read while they answer.
	asked := make(chan []hostReport, 1)
	go func() { asked <- askReports(e, hosts, since, o.Timeout) }()
	r := report.Report{Since: since.Format(time.RFC3339), Until: o.Now.Format(time.RFC3339), Workers: []report.Worker{}}
	if o.Host == "" || o.Host == remote.LocalName {
		facts, damaged, err := localFacts(e)
		if err != nil {
			<-asked
			return report.Report{}, err
		}
		r.Workers, r.Damaged = report.Build(facts, win), damaged
	}
	for _, h := range <-asked {
		r.Hosts = append(r.Hosts, h.host)
		r.Workers = append(r.Workers, h.report.Workers...)
		r.Damaged = append(r.Damaged, h.report.Damaged...)
	}
	r.Totals = report.Sum(r.Workers, r.Hosts)
	warnDamaged(e, r.Damaged)
	return r, nil
}

// reportHosts are the hosts a report asks: none with --host local, the one named, or all.
func reportHosts(e *env, only string) ([]remote.Host, error) {
	reg := remote.RegistryOf(e.Dir().Root)
	switch {
	case only == remote.LocalName:
		return nil, nil
	case only != "":
		h, err := reg.Get(only)
		if err != nil {
			return nil, wrapped(ExitNotFound, "%w", err)
		}
		return []remote.Host{h}, nil
	}
	return reg.All(e.warnErr), nil
}

// localFacts are this machine's records: every worker's, and every loop's whose worker was
// cleaned (its history is kept), in name order; what cannot be read is named in damaged.
func localFacts(e *env) (facts []report.Facts, damaged []report.Damage, err error) {
	list, _, err := e.LoadAll()
	if err != nil {
		return nil, nil, err
	}
	byName := map[string]*state.Worker{}
	names := e.LoopNames()
	for _, w := range list {
		byName[w.Name] = w
		names = append(names, w.Name)
	}
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		f, problems := report.Read(e.Dir(), name)
		for _, p := range problems {
			damaged = append(damaged, report.Damage{Host: remote.LocalName, Worker: name, Problem: p})
		}
		w := byName[name]
		if w != nil && w.Metadata["ralph"] != true {
			// A plain worker: a loop of an older worker of the same name is not its own.
			f.Loop, f.Records = nil, nil
		}
		status, exit := "", (*int)(nil)
		if w != nil {
			status, exit = w.Status, w.ExitCode
			f.Running, f.Started = w.Status == state.StatusRunning, w.Started
		}
		sw := stateOf(status, exit, f.Loop)
		f.State, f.Detail = sw.word, sw.detail
		facts = append(facts, f)
	}
	return facts, damaged, nil
}

// warnDamaged names on stderr each worker whose records could not be read whole.
func warnDamaged(e *env, damaged []report.Damage) {
	for _, d := range damaged {
		name := d.Worker
		if d.Host != "" && d.Host != remote.LocalName {
			name += "@" + d.Host
		}
		e.warnf("%s: %s", report.Clean(name), report.Clean(d.Problem))
	}
}

// reportWidth is the width the text fits: the terminal's, else $COLUMNS; none when neither
// is known (a file or a pipe takes whole lines).
func reportWidth(e *env) int {
	if f, ok := e.stdout.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 20 {
		return n
	}
	return 0
}
