package swarm

import (
	"cmp"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/screen"
)

// peekOptions are the arguments of `swarm peek`.
type peekOptions struct {
	Names  []string
	Lines  int
	All    bool
	Format string
}

func (o peekOptions) check() error {
	if o.Lines <= 0 {
		return fail("-n must be a positive number of lines")
	}
	_, err := checkFormat(cmp.Or(o.Format, "text"), "text", "json")
	return err
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
   swarm peek --all
   swarm peek --all --format json | jq -r '.[] | "\(.name): \(.lines[-1])"'`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "lines", Aliases: []string{"n"}, Usage: "how many lines", Value: 30},
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every running worker"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text, or json: [{name, status, time, lines}]"},
		},
		Action: func(c *cli.Context) error {
			o := peekOptions{Names: c.Args().Slice(), Lines: c.Int("lines"), All: c.Bool("all"), Format: c.String("format")}
			return withEnv(c, o.check, func(e *env) error { return runPeek(e, o) })
		},
	}
}

func runPeek(e *env, o peekOptions) error {
	ws, _, err := e.Targets(o.Names, o.All, running)
	if err != nil {
		return err
	}
	screens := []peekedScreen{}
	for i, w := range ws {
		lines, err := screenLines(e, w, o.Lines, "stdout")
		if err != nil {
			return err
		}
		if o.Format == "json" {
			screens = append(screens, peekedScreen{Name: w.Name, Status: string(w.Status), Time: stamp(time.Now()), Lines: append([]string{}, screen.LastN(lines, o.Lines)...)})
			continue
		}
		if len(ws) > 1 || o.All {
			if i > 0 {
				fmt.Fprintln(e.stdout)
			}
			fmt.Fprintf(e.stdout, "=== %s ===\n", w.Name)
		}
		for _, l := range screen.LastN(lines, o.Lines) {
			fmt.Fprintln(e.stdout, l)
		}
	}
	if o.Format == "json" {
		return printJSON(e, screens)
	}
	return nil
}

// peekedScreen is one worker's screen as `peek --format json` gives it.
type peekedScreen struct {
	Name   string   `json:"name"`
	Status string   `json:"status"`
	Time   string   `json:"time"` // when it was read
	Lines  []string `json:"lines"`
}
