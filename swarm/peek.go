package swarm

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// peekOptions are the arguments of `swarm peek`.
type peekOptions struct {
	Names []string
	Lines int
	All   bool
}

func (o peekOptions) check() error {
	if o.Lines <= 0 {
		return fail("-n must be a positive number of lines")
	}
	return nil
}

func peekCommand() *cli.Command {
	return &cli.Command{
		Name:      "peek",
		Usage:     "print the last lines of a worker's screen",
		ArgsUsage: "NAME...",
		Description: `Prints the last N lines of the worker's tmux pane (or of its stdout log for a process
worker), without the blank padding below the last line.

Examples:
   swarm peek w1
   swarm peek w1 -n 5
   swarm peek --all`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "lines", Aliases: []string{"n"}, Usage: "how many lines", Value: 30},
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every running worker"},
		},
		Action: func(c *cli.Context) error {
			o := peekOptions{Names: c.Args().Slice(), Lines: c.Int("lines"), All: c.Bool("all")}
			return withEnv(c, o.check, func(e *env) error { return runPeek(e, o) })
		},
	}
}

func runPeek(e *env, o peekOptions) error {
	ws, _, err := e.targets(o.Names, o.All, running)
	if err != nil {
		return err
	}
	for i, w := range ws {
		lines, err := screenLines(e, w, o.Lines, "stdout")
		if err != nil {
			return err
		}
		if len(ws) > 1 || o.All {
			if i > 0 {
				fmt.Fprintln(e.stdout)
			}
			fmt.Fprintf(e.stdout, "=== %s ===\n", w.Name)
		}
		for _, l := range lastN(lines, o.Lines) {
			fmt.Fprintln(e.stdout, l)
		}
	}
	return nil
}
