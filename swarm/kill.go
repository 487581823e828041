package swarm

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/swarm/loop"
	"github.com/swarm-dev/swarm/swarm/regent"
)

// killOptions are the arguments of `swarm kill`.
type killOptions struct {
	Names      []string
	All        bool
	RmWorktree bool
	ForceDirty bool
	Grace      float64 // seconds
}

func (o killOptions) check() error {
	return notNegative(o.Grace, "--grace")
}

func killCommand() *cli.Command {
	return &cli.Command{
		Name:      "kill",
		Usage:     "stop a worker and its whole process group",
		ArgsUsage: "NAME...",
		Description: `Sends SIGTERM to the worker's process group (agent, shells and everything they started),
waits for the grace period, then SIGKILLs what is left and removes the tmux window. Several
workers (--all) are ended together: all are signalled first, then waited for within the one
grace period. The record
stays (see it in 'swarm ls') until 'swarm clean'. A ralph loop on the worker stops for good,
also between two agents (in backoff, waiting for a usage limit, paused), and also when its
worker record is gone. Of a worker that is not running, kill only closes what is left (a dead
window, a process that escaped it) and says it was not running ("w1: not running (stopped)").

Examples:
   swarm kill w1
   swarm kill --all                  # also loops in backoff or waiting for a usage limit
   swarm kill w1 --rm-worktree`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every running worker and every ralph loop that is not finished"},
			&cli.BoolFlag{Name: "rm-worktree", Usage: "also remove the worker's git worktree (kept if it has uncommitted changes)"},
			&cli.BoolFlag{Name: "force-dirty", Usage: "with --rm-worktree: remove it even with uncommitted changes"},
			&cli.Float64Flag{Name: "grace", Usage: "seconds between SIGTERM and SIGKILL", Value: 10},
		},
		Action: func(c *cli.Context) error {
			o := killOptions{Names: c.Args().Slice(), All: c.Bool("all"), RmWorktree: c.Bool("rm-worktree"),
				ForceDirty: c.Bool("force-dirty"), Grace: c.Float64("grace")}
			return withEnv(c, o.check, func(e *env) error { return runKill(e, o) })
		},
	}
}

func runKill(e *env, o killOptions) error {
	ts, err := e.KillTargets(o.Names, o.All)
	if err != nil {
		return err
	}
	grace := time.Duration(o.Grace * float64(time.Second))
	// Decided on the targets as they were before the kill.
	reports := make([]string, len(ts))
	for i, t := range ts {
		reports[i] = killReport(t)
	}
	errs := loop.On(e.Machine).KillAll(ts, loop.KillOptions{Grace: grace, RmWorktree: o.RmWorktree, ForceDirty: o.ForceDirty})
	var failed error
	for i, report := range reports {
		if errs[i] != nil {
			// Every worker asked for is still ended; the failure is reported at the end.
			failed = errs[i]
		}
		fmt.Fprintln(e.stdout, report)
	}
	if len(ts) > 0 {
		regent.Settled(e.Machine)
	}
	return failed
}
