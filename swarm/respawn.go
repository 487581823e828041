package swarm

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// respawnOptions are the arguments of `swarm respawn`.
type respawnOptions struct {
	Args       []string
	CleanFirst bool
	ForceDirty bool    // with CleanFirst: remove the worktree even with uncommitted changes
	Grace      float64 // seconds
}

func (o respawnOptions) check() error {
	return exactlyOneName(o.Args, "swarm respawn NAME")
}

func respawnCommand() *cli.Command {
	return &cli.Command{
		Name:      "respawn",
		Usage:     "restart a worker with the same command, environment, directory and tags",
		ArgsUsage: "NAME",
		Description: `Stops the worker if it still runs, then starts it again exactly as it was spawned (same
command, --env values, working directory, tags, tmux session, worktree).

Examples:
   swarm respawn w1
   swarm respawn w1 --clean-first
   swarm respawn w1 --clean-first --force-dirty   # discard the worktree's uncommitted changes`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "clean-first", Usage: "remove the old worktree and create it afresh from its branch"},
			&cli.BoolFlag{Name: "force-dirty", Usage: "with --clean-first: remove the worktree even with uncommitted changes"},
			&cli.Float64Flag{Name: "grace", Usage: "seconds between SIGTERM and SIGKILL when stopping", Value: 10},
		},
		Action: func(c *cli.Context) error {
			o := respawnOptions{Args: c.Args().Slice(), CleanFirst: c.Bool("clean-first"), ForceDirty: c.Bool("force-dirty"), Grace: c.Float64("grace")}
			return withEnv(c, o.check, func(e *env) error { return runRespawn(e, o) })
		},
	}
}

func runRespawn(e *env, o respawnOptions) error {
	w, _, err := e.Load(o.Args[0])
	if err != nil {
		return err
	}
	if ralph.DirFor(e.Dir(), w.Name).MonitorAlive() {
		return fail("worker '%s' is driven by a ralph loop; use 'swarm ralph pause' and 'swarm ralph resume', or kill it first", w.Name)
	}
	if w.Status == state.StatusRunning {
		e.Stop(w, time.Duration(o.Grace*float64(time.Second)))
	}
	w2, err := e.Respawn(w, o.CleanFirst, o.ForceDirty)
	if err != nil {
		return err
	}
	printSpawned(e, "respawned", w2)
	return nil
}
