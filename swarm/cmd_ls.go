package swarm

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/swarm-dev/swarm/state"
	"github.com/urfave/cli/v2"
)

// workerJSON is the published shape of a worker in `ls --format json`. The environment is left
// out on purpose: it may hold secrets.
type workerJSON struct {
	Name     string              `json:"name"`
	Status   string              `json:"status"`
	Cmd      []string            `json:"cmd"`
	Started  string              `json:"started"`
	Cwd      string              `json:"cwd"`
	Tags     []string            `json:"tags"`
	Tmux     *state.TmuxInfo     `json:"tmux"`
	Worktree *state.WorktreeInfo `json:"worktree"`
	PID      int                 `json:"pid"`
	ExitCode *int                `json:"exit_code,omitempty"`
	Metadata map[string]any      `json:"metadata"`
}

func toJSON(w *state.Worker) workerJSON {
	md := map[string]any{}
	for k, v := range w.Metadata {
		if k == "pid_start" {
			continue
		}
		md[k] = v
	}
	tags := w.Tags
	if tags == nil {
		tags = []string{}
	}
	return workerJSON{
		Name: w.Name, Status: w.Status, Cmd: w.Cmd, Started: w.Started.Format(time.RFC3339),
		Cwd: w.Cwd, Tags: tags, Tmux: w.Tmux, Worktree: w.Worktree, PID: w.PID,
		ExitCode: w.ExitCode, Metadata: md,
	}
}

func lsCommand() *cli.Command {
	return &cli.Command{
		Name:    "ls",
		Aliases: []string{"list"},
		Usage:   "list workers with their live status",
		Description: `Lists workers. Status is checked against tmux and the OS at every call.

Examples:
   swarm ls
   swarm ls --status running --format names
   swarm ls --format json | jq '.[] | select(.metadata.ralph == true)'`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "table, json or names", Value: "table"},
			&cli.StringFlag{Name: "status", Usage: "running, stopped or all", Value: "all"},
			&cli.StringFlag{Name: "tag", Usage: "only workers with this tag"},
		},
		Action: func(c *cli.Context) error {
			format, err := formatFlag(c, "table", "json", "names")
			if err != nil {
				return err
			}
			status := c.String("status")
			switch status {
			case "running", "stopped", "all":
			default:
				return fail("invalid --status '%s' (expected running, stopped or all)", status)
			}
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			list, _, err := e.loadAll()
			if err != nil {
				return err
			}
			var shown []*state.Worker
			for _, w := range list {
				if status != "all" && w.Status != status {
					continue
				}
				if t := c.String("tag"); t != "" && !w.HasTag(t) {
					continue
				}
				shown = append(shown, w)
			}
			return printWorkers(e, shown, format)
		},
	}
}

func printWorkers(e *env, list []*state.Worker, format string) error {
	switch format {
	case "json":
		out := make([]workerJSON, 0, len(list))
		for _, w := range list {
			out = append(out, toJSON(w))
		}
		return printJSON(e, out)
	case "names":
		for _, w := range list {
			fmt.Fprintln(e.stdout, w.Name)
		}
	default:
		if len(list) == 0 {
			fmt.Fprintln(e.stdout, "no workers")
			return nil
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tSTATUS\tWHERE\tUPTIME\tWORKTREE\tTAGS")
		for _, w := range list {
			status := w.Status
			if w.Status == state.StatusStopped && w.ExitCode != nil {
				status = fmt.Sprintf("stopped (exit %d)", *w.ExitCode)
			}
			where := fmt.Sprintf("pid %d", w.PID)
			if w.Tmux != nil {
				where = w.Tmux.Session + ":" + w.Tmux.Window
			}
			up := "-"
			if w.Status == state.StatusRunning {
				up = formatDuration(time.Since(w.Started))
			}
			wt := "-"
			if w.Worktree != nil {
				wt = w.Worktree.Path
			}
			tags := strings.Join(w.Tags, ",")
			if tags == "" {
				tags = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", w.Name, status, where, up, wt, tags)
		}
		tw.Flush()
	}
	return nil
}

// formatDuration renders a duration the way people say it: 42s, 5m, 1h 3m, 2d 4h.
func formatDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int(d.Seconds())
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm", s/60)
	case s < 86400:
		if m := (s % 3600) / 60; m > 0 {
			return fmt.Sprintf("%dh %dm", s/3600, m)
		}
		return fmt.Sprintf("%dh", s/3600)
	default:
		if h := (s % 86400) / 3600; h > 0 {
			return fmt.Sprintf("%dd %dh", s/86400, h)
		}
		return fmt.Sprintf("%dd", s/86400)
	}
}

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
			if c.Args().Len() != 1 {
				return fail("usage: swarm status NAME")
			}
			format, err := formatFlag(c, "text", "json")
			if err != nil {
				return err
			}
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			w, _, err := e.loadWorker(c.Args().First())
			if err != nil {
				return err
			}
			if format == "json" {
				if err := printJSON(e, toJSON(w)); err != nil {
					return err
				}
			} else {
				fmt.Fprintln(e.stdout, statusLine(w))
			}
			if w.Status != state.StatusRunning {
				return exitCode(ExitError)
			}
			return nil
		},
	}
}

func statusLine(w *state.Worker) string {
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
	if w.ExitCode != nil {
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
