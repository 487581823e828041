package swarm

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/swarm-dev/swarm/swarm/dashboard"
)

// dashboardOptions are the flags of `swarm dashboard`.
type dashboardOptions struct {
	Once     bool
	Interval time.Duration
	Filter   string
	Sort     string
	// Terminal: standard input and output are a terminal (the live dashboard needs one).
	Terminal bool
}

func (o dashboardOptions) check() error {
	if o.Interval < 100*time.Millisecond {
		return fail("--interval must be at least 100ms")
	}
	if _, err := dashboard.ParseSort(o.Sort); err != nil {
		return fail("%w", err)
	}
	return nil
}

func dashboardCommand() *cli.Command {
	return &cli.Command{
		Name:    "dashboard",
		Aliases: []string{"top"},
		Usage:   "a live view of every worker and loop",
		Description: `Shows every worker in a full-screen view that follows what they do: kind, state in words
(working, idle, blocked: <dialog>, waiting: limit until 19:30, backoff 8s, paused, failed,
done), iteration, last screen change, failures and cost; below, the selected worker's
screen and its loop's recent events (the Regent's lines among them).

Rows that need a person come first: failed, then blocked or waiting (for a limit, a
backoff), then the rest; within each, by name. o turns the order to name, then to started
(the oldest first), then back; --sort picks the order to start with.

Keys: ↑/↓ or j/k select, enter attach (detach to come back), p pause, r resume, x kill
(asks first), s send a line, l log instead of screen, o sort, / filter, esc clear the
filter, ? help, q quit. When a key's action fails, the bottom line says why until the next
key.

--once prints one frame and exits, for scripts; without colour when NO_COLOR is set or the
output is no terminal.

Examples:
   swarm dashboard
   swarm top --filter loop
   swarm dashboard --once --sort name`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "once", Usage: "print one frame and exit"},
			&cli.DurationFlag{Name: "interval", Usage: "how often the view is refreshed", Value: time.Second},
			&cli.StringFlag{Name: "filter", Usage: "show only workers with this text in their name, kind, state or tags"},
			&cli.StringFlag{Name: "sort", Usage: "order of the rows: attention, name or started", Value: "attention"},
		},
		Action: func(c *cli.Context) error {
			o := dashboardOptions{Once: c.Bool("once"), Interval: c.Duration("interval"), Filter: c.String("filter"),
				Sort: c.String("sort"), Terminal: isTerminal(os.Stdin) && isTerminal(os.Stdout)}
			return withEnv(c, o.check, func(e *env) error { return runDashboard(e, o) })
		},
	}
}

func runDashboard(e *env, o dashboardOptions) error {
	data := swarmData{e: e, fleet: newFleetWatch(e)}
	order, _ := dashboard.ParseSort(o.Sort)
	opts := dashboard.Options{Filter: o.Filter, Sort: order, Interval: o.Interval}
	if o.Once {
		opts.Width, opts.Color = onceWidth(), colorFor(e.stdout)
		fmt.Fprintln(e.stdout, dashboard.RenderOnce(data, opts))
		return nil
	}
	if !o.Terminal {
		return fail("the dashboard needs a terminal; use 'swarm dashboard --once' (one frame) or 'swarm ls' instead")
	}
	opts.Color = os.Getenv("NO_COLOR") == ""
	if err := dashboard.Run(data, opts); err != nil {
		return fail("dashboard: %w", err)
	}
	return nil
}

// onceWidth is the width of a frame printed once: the terminal's, else $COLUMNS, else 100.
func onceWidth() int {
	if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 {
		return w
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 20 {
		return n
	}
	return 100
}
