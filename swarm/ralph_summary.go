package swarm

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"
)

// `swarm ralph summary`: how a loop went (or is going), at a glance.

func ralphSummaryCommand() *cli.Command {
	return &cli.Command{
		Name:      "summary",
		Usage:     "show how a loop went: status, iterations, duration, cost, signals, checks, commits",
		ArgsUsage: "NAME",
		Description: `Builds the summary from the loop's files as they are now, so it works while the loop
runs too. A loop that ended also keeps it in summary.md in its directory.

Examples:
   swarm ralph summary agent
   swarm ralph summary agent --format json`,
		Flags: []cli.Flag{&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Usage: "text or json"}},
		Action: func(c *cli.Context) error {
			o := ralphSummaryOptions{Args: c.Args().Slice(), Format: c.String("format")}
			return withEnv(c, o.check, func(e *env) error { return runRalphSummary(e, o) })
		},
	}
}

// ralphSummaryOptions are the arguments of `swarm ralph summary`.
type ralphSummaryOptions struct {
	Args   []string
	Format string
}

func (o ralphSummaryOptions) check() error {
	err := exactlyOneName(o.Args, "swarm ralph summary NAME")
	if err == nil {
		_, err = checkFormat(o.Format, "text", "json")
	}
	return err
}

func runRalphSummary(e *env, o ralphSummaryOptions) error {
	name := o.Args[0]
	_, ld, _, err := loadLoop(e, name)
	if isNotFound(err) {
		// A cleaned worker's loop history is kept, and so is its summary.
		_, ld, _, err = loadLoopHistory(e, name, err)
	}
	if err != nil {
		return err
	}
	s, err := ld.LoadSummary(name, time.Now())
	if err != nil {
		return fail("cannot read the loop of '%s': %w", name, err)
	}
	if l := landingOf(e, name); l != nil {
		s.Landing = landingText(l)
	}
	if o.Format == "json" {
		return printJSON(e, s)
	}
	fmt.Fprint(e.stdout, s.Markdown())
	return nil
}
