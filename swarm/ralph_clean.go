package swarm

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/worker"
)

func ralphCleanCommand() *cli.Command {
	return &cli.Command{
		Name:      "clean",
		Usage:     "remove the state of loops that are no longer running",
		ArgsUsage: "NAME...",
		Description: `Removes $SWARM_DIR/ralph/NAME (state, logs, saved screens). A loop whose monitor is alive
is refused; pause or kill it first.

Examples:
   swarm ralph clean agent
   swarm ralph clean --all`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every loop without a live monitor"}},
		Action: func(c *cli.Context) error {
			o := ralphCleanOptions{Names: c.Args().Slice(), All: c.Bool("all")}
			return withEnv(c, o.check, func(e *env) error { return runRalphClean(e, o) })
		},
	}
}

// ralphCleanOptions are the arguments of `swarm ralph clean`.
type ralphCleanOptions struct {
	Names []string
	All   bool // every loop without a live monitor
}

func (o ralphCleanOptions) check() error {
	switch {
	case o.All && len(o.Names) > 0:
		return fail("give loop names or --all, not both")
	case !o.All && len(o.Names) == 0:
		return fail("no loop name given (or use --all)")
	}
	for _, n := range o.Names {
		if err := worker.ValidateName(n); err != nil {
			return err
		}
	}
	return nil
}

// runRalphClean checks every name before it removes anything, so a refused name leaves the
// others as they were too.
func runRalphClean(e *env, o ralphCleanOptions) error {
	names := o.Names
	if o.All {
		for _, n := range e.LoopNames() {
			if !ralph.DirFor(e.Dir(), n).MonitorAlive() {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			fmt.Fprintln(e.stdout, "nothing to clean")
		}
	}
	for _, n := range names {
		ld := ralph.DirFor(e.Dir(), n)
		if !hasLoop(ld) {
			return noneNamed(e, n, fail("no ralph loop for '%s'", n))
		}
		if ld.MonitorAlive() {
			return fail("cannot clean running ralph loop '%s' (pause or kill it first)", n)
		}
	}
	for _, n := range names {
		if err := os.RemoveAll(ralph.DirFor(e.Dir(), n).Path); err != nil {
			return fail("%w", err)
		}
		fmt.Fprintf(e.stdout, "cleaned ralph state for %s\n", n)
	}
	return nil
}
