package swarm

import (
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/state"
)

// cleanOptions are the arguments of `swarm clean`.
type cleanOptions struct {
	Names      []string
	All        bool
	RmWorktree bool
	ForceDirty bool
}

func cleanCommand() *cli.Command {
	return &cli.Command{
		Name:      "clean",
		Usage:     "remove stopped workers (record, logs, window, worktree)",
		ArgsUsage: "NAME...",
		Description: `Removes what is left of stopped workers: the record, log files, the dead tmux window (and
the session when it is empty) and, unless --rm-worktree=false, the git worktree when it has no
uncommitted changes. Running workers are refused.

Examples:
   swarm clean w1
   swarm clean --all`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every stopped worker"},
			&cli.BoolFlag{Name: "rm-worktree", Usage: "remove the worker's git worktree", Value: true},
			&cli.BoolFlag{Name: "force-dirty", Usage: "remove the worktree even with uncommitted changes"},
		},
		Action: func(c *cli.Context) error {
			o := cleanOptions{Names: c.Args().Slice(), All: c.Bool("all"), RmWorktree: c.Bool("rm-worktree"), ForceDirty: c.Bool("force-dirty")}
			return withEnv(c, nil, func(e *env) error { return runClean(e, o) })
		},
	}
}

func runClean(e *env, o cleanOptions) error {
	ws, _, err := e.targets(o.Names, o.All, func(w *state.Worker) bool { return !running(w) })
	if err != nil {
		return err
	}
	for _, w := range ws {
		if w.Status == state.StatusRunning {
			return fail("cannot clean running worker '%s'", w.Name)
		}
	}
	for _, w := range ws {
		if err := cleanWorker(e, w, o.RmWorktree, o.ForceDirty); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "cleaned %s\n", w.Name)
	}
	if o.All && len(ws) == 0 {
		fmt.Fprintln(e.stdout, "nothing to clean")
	}
	return nil
}

// cleanWorker removes everything a stopped worker left: its window, worktree, loop state,
// files and record.
func cleanWorker(e *env, w *state.Worker, rmWorktree, force bool) error {
	if _, ok := e.ownPane(w); ok {
		_ = e.tmuxFor(w).KillPane(w.Tmux.PaneID)
	}
	e.endTagged(w, 2*time.Second)
	if rmWorktree && w.Worktree != nil {
		removeWorktree(e, w.Worktree, force)
	}
	removeLoopOnClean(e, w.Name)
	for _, p := range []string{e.dir.LogPath(w.Name, "stdout"), e.dir.LogPath(w.Name, "stderr"), e.dir.ExitPath(w.Name), e.dir.EnvPath(w.Name), e.dir.ScreenPath(w.Name)} {
		_ = os.Remove(p)
	}
	return e.dir.UpdateWorkers(e.warnErr, func(all *state.Workers) error {
		all.Delete(w.Name)
		return nil
	})
}
