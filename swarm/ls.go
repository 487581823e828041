package swarm

import (
	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/regent"
)

// lsOptions are the flags of `swarm ls`.
type lsOptions struct {
	Format string
	Status string
	Tag    string
}

func (o lsOptions) check() error {
	if _, err := checkFormat(o.Format, "table", "json", "names"); err != nil {
		return err
	}
	switch o.Status {
	case "all", wordRunning, wordStopped, wordOrphaned, wordWaiting, wordPaused, wordDone, wordKilled, wordFailed:
		return nil
	}
	return fail("invalid --status '%s' (expected running, stopped, orphaned, waiting, paused, done, killed, failed or all)", o.Status)
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
   swarm ls --status done          # loops that finished their work
   swarm ls --format json | jq '.[] | select(.metadata.ralph == true)'`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "table, json or names", Value: "table"},
			&cli.StringFlag{Name: "status", Usage: "the worker's process (running, stopped, orphaned) or its state (waiting, paused, done, killed, failed), or all", Value: "all"},
			&cli.StringFlag{Name: "tag", Usage: "only workers with this tag"},
		},
		Action: func(c *cli.Context) error {
			o := lsOptions{Format: c.String("format"), Status: c.String("status"), Tag: c.String("tag")}
			return withEnv(c, o.check, func(e *env) error { return runLs(e, o) })
		},
	}
}

func runLs(e *env, o lsOptions) error {
	regent.Revive(e.Host)
	list, _, err := e.LoadAll()
	if err != nil {
		return err
	}
	var shown []*state.Worker
	for _, w := range list {
		if o.Status != "all" && w.Status != o.Status && workerState(e, w).word != o.Status {
			continue
		}
		if o.Tag != "" && !w.HasTag(o.Tag) {
			continue
		}
		shown = append(shown, w)
	}
	return printWorkers(e, shown, o.Format)
}
