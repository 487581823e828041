package swarm

import (
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/regent"
)

func ralphLsCommand() *cli.Command {
	return &cli.Command{
		Name:    "ls",
		Aliases: []string{"list"},
		Usage:   "list ralph loops",
		Description: `Examples:
   swarm ralph ls
   swarm ralph ls --status running --format names
   swarm ralph list --format json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "table", Usage: "table, json or names"},
			&cli.StringFlag{Name: "status", Value: "all", Usage: "only loops in this state: running (blocked ones too), blocked, waiting, paused, done, killed, stopped (any of the last three), failed or all"},
		},
		Action: func(c *cli.Context) error {
			o := ralphLsOptions{Format: c.String("format"), Status: c.String("status")}
			return withEnv(c, o.check, func(e *env) error { return runRalphLs(e, o) })
		},
	}
}

// ralphLsOptions are the arguments of `swarm ralph ls`.
type ralphLsOptions struct {
	Format string // table, json or names
	Status string // a loop status, or all ("" is all)
}

func (o ralphLsOptions) check() error {
	if _, err := checkFormat(o.Format, "table", "json", "names"); err != nil {
		return err
	}
	switch o.Status {
	case "", "all", wordRunning, wordBlocked, wordWaiting, wordPaused, wordDone, wordKilled, wordStopped, wordFailed:
		return nil
	}
	return fail("invalid --status '%s' (expected running, blocked, waiting, paused, done, killed, stopped, failed or all)", o.Status)
}

func runRalphLs(e *env, o ralphLsOptions) error {
	regent.Revive(e.Machine)
	all, err := listLoops(e)
	if err != nil {
		return err
	}
	var views []loopView
	for _, v := range all {
		if o.Status == "" || o.Status == "all" || v.Status.String() == o.Status || v.Word == o.Status {
			views = append(views, v)
		}
	}
	switch o.Format {
	case "json":
		if views == nil {
			views = []loopView{}
		}
		return printJSON(e, views)
	case "names":
		for _, v := range views {
			fmt.Fprintln(e.stdout, v.WorkerName)
		}
	default:
		printLoopTable(e, views)
	}
	return nil
}

// listLoops views every loop whose state can be read; a damaged one is named on stderr, so
// that it does not just vanish from the list.
func listLoops(e *env) ([]loopView, error) {
	list, _, err := e.LoadAll()
	if err != nil {
		return nil, err
	}
	byName := map[string]*state.Worker{}
	for _, w := range list {
		byName[w.Name] = w
	}
	var views []loopView
	regentPID := regent.NewClient(e.Dir()).PID()
	for _, name := range e.LoopNames() {
		ld := ralph.DirFor(e.Dir(), name)
		st, err := ld.Load()
		if err != nil {
			if hasLoop(ld) {
				e.warnErr(loopStateError(ld, name, err))
			}
			continue
		}
		views = append(views, viewLoop(ld, st, byName[name], regentPID))
	}
	return views, nil
}

func printLoopTable(e *env, views []loopView) {
	if len(views) == 0 {
		fmt.Fprintln(e.stdout, "no ralph loops")
		return
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATUS\tITERATION\tCOST\tWORKER\tMONITOR\tEXIT REASON")
	for _, v := range views {
		mon := "-" // a paused or ended loop has no monitor to have
		switch {
		case v.MonitorAlive:
			mon = "alive"
		case v.Status == ralph.StatusRunning || v.Status == ralph.StatusWaiting:
			mon = "dead"
		}
		reason := v.ExitReason
		if reason == "" {
			reason = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s\t%s\t%s\n", v.WorkerName, v.statusText(), v.CurrentIteration, v.MaxIterations,
			costCell(v.State), v.WorkerStatus, mon, reason)
	}
	tw.Flush()
}
