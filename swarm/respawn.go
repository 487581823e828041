package swarm

import (
	"os"
	"path/filepath"
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
	w, _, err := e.loadWorker(o.Args[0])
	if err != nil {
		return err
	}
	if ralph.DirFor(e.dir, w.Name).MonitorAlive() {
		return fail("worker '%s' is driven by a ralph loop; use 'swarm ralph pause' and 'swarm ralph resume', or kill it first", w.Name)
	}
	if w.Status == state.StatusRunning {
		stopWorker(e, w, time.Duration(o.Grace*float64(time.Second)))
	}
	w2, err := respawnWorker(e, w, o.CleanFirst, o.ForceDirty)
	if err != nil {
		return err
	}
	printSpawned(e, "respawned", w2)
	return nil
}

func respawnWorker(e *env, w *state.Worker, cleanFirst, forceDirty bool) (*state.Worker, error) {
	var baseEnv []string
	if err := state.ReadJSON(e.dir.EnvPath(w.Name), &baseEnv); err != nil {
		baseEnv = nil
	}
	o := spawnOptions{
		Name: w.Name, Tmux: w.Tmux != nil, Tags: w.Tags, Env: w.Env, Cwd: w.Cwd, Argv: w.Cmd,
		BaseEnv: baseEnv, Metadata: w.Metadata, ID: w.ID,
	}
	if w.Tmux != nil {
		o.Session = w.Tmux.Session
	}
	if w.Worktree != nil {
		if cleanFirst {
			if !removeWorktree(e, w.Worktree, forceDirty) {
				return nil, fail("cannot remove worktree %s for --clean-first", w.Worktree.Path)
			}
			o.Worktree, o.Branch, o.WorktreeDir = true, w.Worktree.Branch, filepath.Dir(w.Worktree.Path)
			o.Cwd = w.Worktree.BaseRepo
		} else if _, err := os.Stat(w.Worktree.Path); err == nil {
			o.ExistingWorktree = w.Worktree
		} else {
			o.Worktree, o.Branch, o.WorktreeDir = true, w.Worktree.Branch, filepath.Dir(w.Worktree.Path)
			o.Cwd = w.Worktree.BaseRepo
		}
	}
	if _, ok := e.ownPane(w); ok {
		_ = e.tmuxFor(w).KillPane(w.Tmux.PaneID)
	}
	if err := e.dir.UpdateWorkers(e.warnErr, func(all *state.Workers) error {
		all.Delete(w.Name)
		return nil
	}); err != nil {
		return nil, err
	}
	// The new pane goes on the server the worker lives on, not the one this command names.
	on := *e
	on.tm = e.tmuxFor(w)
	w2, err := spawnWorker(&on, o)
	if err != nil {
		// Put the old record back so the worker is not lost from view.
		_ = e.dir.UpdateWorkers(e.warnErr, func(all *state.Workers) error {
			if all.Get(w.Name) == nil {
				w.Status = state.StatusStopped
				all.Put(w)
			}
			return nil
		})
		return nil, err
	}
	return w2, nil
}
