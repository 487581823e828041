package swarm

import (
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/loop"
)

// A loop's monitor as a command: the driving is swarm/loop's (Loops.RunMonitor); what stays here
// is a foreground run's face (plain lines under a progress line, the summary at the end) and
// its exit code.

func monitorCommand() *cli.Command {
	return &cli.Command{
		Name:   "__monitor",
		Hidden: true,
		Action: func(c *cli.Context) error {
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			return runMonitor(e, monitorOptions{name: c.Args().First(), out: e.stdout})
		},
	}
}

// monitorOptions is one run of a loop's monitor.
type monitorOptions struct {
	name string
	// out gets a foreground run's messages; a background monitor writes them to the loop's
	// monitor.log with timestamps instead.
	out io.Writer
	// foreground runs print plain lines to out (under a progress line on a terminal), the
	// summary at the end, and map the loop's outcome to the exit code.
	foreground bool
	// verbose: a foreground run also shows what checkers and hooks print.
	verbose bool
}

// runMonitor drives a loop in this process until it ends.
func runMonitor(e *env, o monitorOptions) error {
	m := loop.Monitor{Name: o.name, Out: o.out}
	var lines *lineWriter
	var progress *progressLine
	if o.foreground {
		m.Foreground = func(ld ralph.Dir) (io.Writer, io.Writer) {
			to := o.out
			if progress = newProgressLine(o.out, ld); progress != nil {
				to = progress
			}
			lines = regentLines(to, colorFor(o.out), time.Now)
			if !o.verbose {
				return lines, io.Discard
			}
			return lines, lines
		}
	}
	status, err := loop.On(e.Machine).RunMonitor(m)
	var end error
	if lines != nil {
		if err == nil {
			end = foregroundEnd(ralph.DirFor(e.Dir(), o.name), o, status, lines)
		}
		_ = lines.flush()
	}
	if progress != nil {
		progress.close()
	}
	if err != nil {
		return fail("%w", err)
	}
	return end
}

// foregroundEnd prints a finished loop's summary and maps how it ended to the exit code
// (foregroundExit).
func foregroundEnd(ld ralph.Dir, o monitorOptions, status ralph.Status, out io.Writer) error {
	st, err := ld.Load()
	if err != nil {
		if status == ralph.StatusFailed {
			return exitCode(ExitError)
		}
		return nil
	}
	// An agent has said its session summary; a loop's own is in summary.md.
	am, _ := ld.LoadAgentMode()
	if am == nil && (status == ralph.StatusStopped || status == ralph.StatusFailed) {
		if s, err := ld.LoadSummary(o.name, time.Now()); err == nil {
			fmt.Fprint(out, "\n"+s.Markdown())
		}
	}
	return exitCode(foregroundExit(st, am))
}
