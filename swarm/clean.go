package swarm

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/land"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// cleanOptions are the arguments of `swarm clean`.
type cleanOptions struct {
	Names []string
	All   bool
	// Landed: every stopped worker whose branch is on its target (swarm land), no other.
	Landed     bool
	RmWorktree bool
	ForceDirty bool
	Purge      bool // also remove a ralph loop's history
}

func cleanCommand() *cli.Command {
	return &cli.Command{
		Name:      "clean",
		Usage:     "remove stopped workers (record, logs, window, worktree; --purge: loop history)",
		ArgsUsage: "NAME...",
		Description: `Removes what is left of stopped workers: the record, log files, the dead tmux window (and
the session when it is empty) and, unless --no-rm-worktree, the git worktree when it has no
uncommitted changes. A ralph loop's history ($SWARM_DIR/ralph/NAME: iterations.log, state,
screens) is kept for looking back unless --purge is given ('swarm ralph clean' removes it too).
Running workers are refused, and so are workers whose ralph loop is not finished (in backoff,
waiting for a usage limit, paused): 'swarm kill' stops the loop first. --all passes over them.
--landed takes the stopped workers whose branch is on its target ('swarm land' landed it, or it
was merged by hand) and leaves the rest: the morning after a land that sent branches back, it
clears what is finished and keeps what still has work to land.

Examples:
   swarm clean w1
   swarm clean --all
   swarm clean --landed                # the workers whose branch landed
   swarm clean loop1 --purge           # the loop's history too
   swarm clean w2 --no-rm-worktree     # keep its worktree`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every stopped worker (not one whose ralph loop is not finished)"},
			&cli.BoolFlag{Name: "landed", Usage: "every stopped worker whose branch landed on its target (swarm land)"},
			&cli.BoolFlag{Name: "rm-worktree", Usage: "remove the worker's git worktree", Value: true},
			&cli.BoolFlag{Name: "no-rm-worktree", Usage: "keep the worker's git worktree"},
			&cli.BoolFlag{Name: "force-dirty", Usage: "remove the worktree even with uncommitted changes"},
			&cli.BoolFlag{Name: "purge", Usage: "also remove a ralph loop's history (iterations.log, state, screens)"},
		},
		Action: func(c *cli.Context) error {
			o := cleanOptions{Names: c.Args().Slice(), All: c.Bool("all"), Landed: c.Bool("landed"), ForceDirty: c.Bool("force-dirty"), Purge: c.Bool("purge"),
				RmWorktree: c.Bool("rm-worktree") && !c.Bool("no-rm-worktree")}
			return withEnv(c, o.check, func(e *env) error { return runClean(e, o) })
		},
	}
}

func (o cleanOptions) check() error {
	if o.Landed && (o.All || len(o.Names) > 0) {
		return fail("--landed chooses the workers itself: give it without --all and without names")
	}
	return nil
}

func runClean(e *env, o cleanOptions) error {
	ws, _, err := e.Targets(o.Names, o.All || o.Landed, func(w *state.Worker) bool {
		return !running(w) && (!o.Landed || land.BranchLanded(e.Dir(), w) != "")
	})
	if err != nil {
		return err
	}
	ws, err = keepUnfinishedLoops(e, ws, o.All || o.Landed)
	if err != nil {
		return err
	}
	for _, w := range ws {
		if w.Status == state.StatusRunning {
			return fail("cannot clean running worker '%s'", w.Name)
		}
	}
	for _, w := range ws {
		if err := cleanWorker(e, w, worker.CleanWhat{Worktree: o.RmWorktree, ForceDirty: o.ForceDirty, Loop: o.Purge}); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "cleaned %s\n", w.Name)
	}
	if (o.All || o.Landed) && len(ws) == 0 {
		fmt.Fprintln(e.stdout, "nothing to clean")
	}
	return nil
}

// keepUnfinishedLoops leaves out the workers whose ralph loop is not finished: between two
// agents the record looks stopped, but the loop starts the next agent in it, and without the
// record nothing but the loop's name would be left to stop it by. Named, such a worker is
// refused; --all passes it over and says so.
func keepUnfinishedLoops(e *env, ws []*state.Worker, all bool) ([]*state.Worker, error) {
	out := ws[:0:0]
	for _, w := range ws {
		st := e.LoopState(w.Name)
		if !worker.LoopUnfinished(st) || w.Status == state.StatusRunning {
			out = append(out, w)
			continue
		}
		if !all {
			return nil, fail("cannot clean '%s': its ralph loop is %s, not finished (stop it first: swarm kill %s)", w.Name, loopStanding(st), w.Name)
		}
		e.warnf("kept '%s': its ralph loop is %s, not finished (stop it first: swarm kill %s)", w.Name, loopStanding(st), w.Name)
	}
	return out, nil
}

// cleanWorker stops the worker's heartbeat, waking the Regent that sent it, and removes what
// the worker left (see worker.Machine.Clean).
func cleanWorker(e *env, w *state.Worker, what worker.CleanWhat) error {
	if e.StopHeartbeat(w.Name) {
		regent.Wake(e.Machine)
	}
	return e.Clean(w, what)
}
