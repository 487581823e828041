package swarm

import (
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

func ralphLsCommand() *cli.Command {
	return &cli.Command{
		Name:  "ls",
		Usage: "list ralph loops",
		Description: `Examples:
   swarm ralph ls
   swarm ralph ls --format json`,
		Flags: []cli.Flag{&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "table", Usage: "table, json or names"}},
		Action: func(c *cli.Context) error {
			o := ralphLsOptions{Format: c.String("format")}
			return withEnv(c, o.check, func(e *env) error { return runRalphLs(e, o) })
		},
	}
}

// ralphLsOptions are the arguments of `swarm ralph ls`.
type ralphLsOptions struct {
	Format string // table, json or names
}

func (o ralphLsOptions) check() error {
	_, err := checkFormat(o.Format, "table", "json", "names")
	return err
}

func runRalphLs(e *env, o ralphLsOptions) error {
	views, err := listLoops(e)
	if err != nil {
		return err
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
	list, _, err := e.loadAll()
	if err != nil {
		return nil, err
	}
	byName := map[string]*state.Worker{}
	for _, w := range list {
		byName[w.Name] = w
	}
	var views []loopView
	for _, name := range loopNames(e) {
		ld := ralph.DirFor(e.dir, name)
		st, err := ld.Load()
		if err != nil {
			if hasLoop(ld) {
				e.warnErr(loopStateError(ld, name, err))
			}
			continue
		}
		views = append(views, viewLoop(ld, st, byName[name]))
	}
	return views, nil
}

func printLoopTable(e *env, views []loopView) {
	if len(views) == 0 {
		fmt.Fprintln(e.stdout, "no ralph loops")
		return
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATUS\tITERATION\tWORKER\tMONITOR\tEXIT REASON")
	for _, v := range views {
		mon := "dead"
		if v.MonitorAlive {
			mon = "alive"
		}
		reason := v.ExitReason
		if reason == "" {
			reason = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s\t%s\n", v.WorkerName, v.Status, v.CurrentIteration, v.MaxIterations, v.WorkerStatus, mon, reason)
	}
	tw.Flush()
}
