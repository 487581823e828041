package swarm

import (
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/state"
)

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show one worker's status (exit 0 running, 1 stopped, 2 no such worker)",
		ArgsUsage: "NAME",
		Description: `Prints one line about the worker. The exit code tells scripts the answer without parsing.

Examples:
   swarm status w1
   swarm status w1 >/dev/null && echo "still working"`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "text or json", Value: "text"},
		},
		Action: func(c *cli.Context) error {
			o := statusOptions{Args: c.Args().Slice(), Format: c.String("format")}
			return withEnv(c, o.check, func(e *env) error { return runStatus(e, o) })
		},
	}
}

// statusOptions are the arguments of `swarm status`.
type statusOptions struct {
	Args   []string
	Format string
}

func (o statusOptions) check() error {
	if err := exactlyOneName(o.Args, "swarm status NAME"); err != nil {
		return err
	}
	_, err := checkFormat(o.Format, "text", "json")
	return err
}

func runStatus(e *env, o statusOptions) error {
	w, _, err := e.loadWorker(o.Args[0])
	if err != nil {
		return err
	}
	if o.Format == "json" {
		if err := printJSON(e, toJSON(w)); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(e.stdout, statusLine(w, loopEnding(e, w)))
	}
	if w.Status != state.StatusRunning {
		return exitCode(ExitError)
	}
	return nil
}

// statusLine is one worker's status; ended is how its loop ended (nil when it is no ended
// loop's).
func statusLine(w *state.Worker, ended *loopEnd) string {
	var parts []string
	if w.Status == state.StatusRunning {
		if w.Tmux != nil {
			parts = append(parts, fmt.Sprintf("tmux window %s:%s", w.Tmux.Session, w.Tmux.Window))
		} else {
			parts = append(parts, fmt.Sprintf("pid %d", w.PID))
		}
		if w.Worktree != nil {
			parts = append(parts, "worktree "+w.Worktree.Path)
		}
		parts = append(parts, "uptime "+formatDuration(time.Since(w.Started)))
		return fmt.Sprintf("%s: running (%s)", w.Name, strings.Join(parts, ", "))
	}
	if w.Status == state.StatusOrphaned {
		return fmt.Sprintf("%s: orphaned (its processes run without their window or process group; 'swarm kill %s' ends them)", w.Name, w.Name)
	}
	switch {
	case ended != nil:
		// The worker stopped because its loop ended: that is what says how it went (its
		// agent's exit code is the signal the loop ended it with).
		parts = append(parts, ended.inWords())
	case w.ExitCode != nil:
		parts = append(parts, fmt.Sprintf("exit %d", *w.ExitCode))
	}
	if w.Worktree != nil {
		parts = append(parts, "worktree "+w.Worktree.Path)
	}
	if len(parts) == 0 {
		return w.Name + ": stopped"
	}
	return fmt.Sprintf("%s: stopped (%s)", w.Name, strings.Join(parts, ", "))
}
