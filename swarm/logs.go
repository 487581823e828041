package swarm

import (
	"cmp"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/screen"
)

// logsOptions are the arguments of `swarm logs`.
type logsOptions struct {
	Args    []string
	History bool
	Lines   int
	Follow  bool
	Stderr  bool
	Format  string
}

func (o logsOptions) check() error {
	if err := exactlyOneName(o.Args, "swarm logs NAME"); err != nil {
		return err
	}
	if _, err := checkFormat(cmp.Or(o.Format, "text"), "text", "json"); err != nil {
		return err
	}
	return notNegative(float64(o.Lines), "--lines")
}

func logsCommand() *cli.Command {
	return &cli.Command{
		Name:      "logs",
		Usage:     "print a worker's output (pane content or log files)",
		ArgsUsage: "NAME",
		Description: `Prints the worker's visible screen (tmux) or its stdout log (process worker).

Examples:
   swarm logs w1
   swarm logs w1 --history --lines 200
   swarm logs w1 --follow
   swarm logs build --stderr
   swarm logs w1 --follow --format json | jq -r .line`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "history", Usage: "include the whole scrollback (tmux)"},
			&cli.IntFlag{Name: "lines", Aliases: []string{"n"}, Usage: "only the last K lines (0: all)"},
			&cli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "keep printing new output until the worker stops"},
			&cli.BoolFlag{Name: "stderr", Usage: "the stderr log instead of stdout (process worker)"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text, or json: one object per line, {worker, stream, time, line}"},
		},
		Action: func(c *cli.Context) error {
			o := logsOptions{Args: c.Args().Slice(), History: c.Bool("history"), Lines: c.Int("lines"),
				Follow: c.Bool("follow"), Stderr: c.Bool("stderr"), Format: c.String("format")}
			return withEnv(c, o.check, func(e *env) error { return runLogs(e, o) })
		},
	}
}

func runLogs(e *env, o logsOptions) error {
	w, _, err := e.Load(o.Args[0])
	if err != nil {
		return err
	}
	stream := "stdout"
	if o.Stderr {
		if w.Tmux != nil {
			return fail("--stderr is for process workers; a tmux pane shows both streams")
		}
		stream = "stderr"
	}
	if o.Format == "json" {
		shown := stream
		if w.Tmux != nil {
			shown = "screen"
		}
		j := jsonLines(e.stdout, w.Name, shown)
		defer func() { _ = j.flush() }()
		je := *e
		je.stdout = j
		e = &je
	}
	history := 0
	if o.History || o.Follow {
		history = -1
	}
	if o.Follow && w.Tmux == nil {
		return followFile(e, w, stream, o.Lines)
	}
	if o.Follow {
		// A live pane is followed from its first look; an ended one is printed as logs shows it.
		if p, own := e.OwnPane(w); own && !p.Dead {
			return followPane(e, w, history, o.Lines)
		}
	}
	lines, err := screenLines(e, w, history, stream)
	if err != nil {
		return err
	}
	lines = screen.LastN(lines, o.Lines)
	for _, l := range lines {
		fmt.Fprintln(e.stdout, l)
	}
	return nil
}
