package swarm

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/swarm/remote"
)

// lsOptions are the flags of `swarm ls`.
type lsOptions struct {
	Format  string
	Status  string
	Tag     string
	Host    string
	Timeout time.Duration
}

func (o lsOptions) check() error {
	if _, err := checkFormat(o.Format, "table", "json", "names"); err != nil {
		return err
	}
	switch o.Status {
	case "all", wordRunning, wordStopped, wordOrphaned, wordBlocked, wordWaiting, wordPaused, wordDone, wordKilled, wordFailed:
		return nil
	}
	return fail("invalid --status '%s' (expected running, stopped, orphaned, blocked, waiting, paused, done, killed, failed or all)", o.Status)
}

func lsCommand() *cli.Command {
	return &cli.Command{
		Name:    "ls",
		Aliases: []string{"list"},
		Usage:   "list workers with their live status",
		Description: `Lists workers. Status is checked against tmux and the OS at every call.

Examples:
   swarm ls
   swarm ls --status running --format names
   swarm ls --status done          # loops that finished their work
   swarm ls --status blocked       # loops that need a person (a dialog, a permission)
   swarm ls --format json | jq -r '.[] | select(.needs_person) | "\(.name): \(.needs_person.what)"'
   swarm ls --format json | jq '.[] | select(.metadata.ralph == true)'
   swarm ls --host box             # one host's workers (see swarm host)

With hosts added (swarm host add), ls asks every host at once, each within --timeout, and
shows their workers with a HOST column; a host that does not answer in time is shown with
its last known workers as unreachable, and when it was last seen.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "table, json or names", Value: "table"},
			&cli.StringFlag{Name: "status", Usage: "the worker's process (running, stopped, orphaned) or its state (blocked, waiting, paused, done, killed, failed), or all", Value: "all"},
			&cli.StringFlag{Name: "tag", Usage: "only workers with this tag"},
			&cli.StringFlag{Name: "host", Usage: "only this host's workers (local: this machine's)"},
			&cli.Float64Flag{Name: "timeout", Usage: "seconds each host has to answer", Value: 5},
		},
		Action: func(c *cli.Context) error {
			o := lsOptions{Format: c.String("format"), Status: c.String("status"), Tag: c.String("tag"),
				Host: c.String("host"), Timeout: seconds(c.Float64("timeout"))}
			return withEnv(c, o.check, func(e *env) error { return runLs(e, o) })
		},
	}
}

func runLs(e *env, o lsOptions) error {
	list, parts, err := lsParts(e, o)
	if err != nil {
		return err
	}
	if parts == nil {
		return printWorkers(e, list, o.Format)
	}
	return printFleet(e, parts, o.Format)
}

// lsValue is what `ls --format json` prints (a host that did not answer is warned of).
func lsValue(e *env, o lsOptions) ([]workerJSON, error) {
	list, parts, err := lsParts(e, o)
	if err != nil || parts == nil {
		return workersJSON(e, list), err
	}
	warnFleet(e, parts)
	return fleetWorkers(parts), nil
}

// lsParts are the workers ls shows: this machine's alone (parts nil) when no host is asked,
// else every machine's asked.
func lsParts(e *env, o lsOptions) ([]*state.Worker, []fleetPart, error) {
	reg := remote.RegistryOf(e.Dir().Root)
	if o.Host == remote.LocalName || (o.Host == "" && !reg.Any()) {
		list, err := localWorkers(e, o)
		return list, nil, err
	}
	hosts := reg.All(e.warnErr)
	if o.Host != "" {
		h, err := reg.Get(o.Host)
		if err != nil {
			return nil, nil, wrapped(ExitNotFound, "%w", err)
		}
		return nil, askFleet(e, []remote.Host{h}, o.remoteArgs(), o.Timeout), nil
	}
	// The hosts are asked first, and this machine's workers read while they answer.
	asked := make(chan []fleetPart, 1)
	go func() { asked <- askFleet(e, hosts, o.remoteArgs(), o.Timeout) }()
	list, err := localWorkers(e, o)
	if err != nil {
		<-asked
		return nil, nil, err
	}
	local := fleetPart{host: remote.LocalName, workers: workersJSON(e, list)}
	for i := range local.workers {
		local.workers[i].Host = remote.LocalName
	}
	return nil, append([]fleetPart{local}, <-asked...), nil
}

// remoteArgs are the filters a host applies to its own workers.
func (o lsOptions) remoteArgs() []string {
	var args []string
	if o.Status != "all" {
		args = append(args, "--status", o.Status)
	}
	if o.Tag != "" {
		args = append(args, "--tag", o.Tag)
	}
	return args
}

// localWorkers are this machine's workers that the filters of o keep.
func localWorkers(e *env, o lsOptions) ([]*state.Worker, error) {
	regent.Revive(e.Machine)
	list, _, err := e.LoadAll()
	if err != nil {
		return nil, err
	}
	var shown []*state.Worker
	for _, w := range list {
		if o.Status != "all" && w.Status != o.Status && workerState(e, w).word != o.Status {
			continue
		}
		if o.Tag != "" && !w.HasTag(o.Tag) {
			continue
		}
		shown = append(shown, w)
	}
	return shown, nil
}
