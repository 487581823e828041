package swarm

import (
	"github.com/urfave/cli/v2"
)

// `swarm ralph stop` is `swarm kill` for one looping worker, under the name the Python swarm's
// users script.
func ralphStopCommand() *cli.Command {
	return &cli.Command{
		Name:      "stop",
		Usage:     "stop a ralph loop and its agent for good (same as swarm kill NAME)",
		ArgsUsage: "NAME",
		Description: `Ends the loop (it starts no further iteration), then the agent's whole process group, as
'swarm kill' does. The loop's history stays for 'swarm ralph status' and 'swarm ralph logs';
'swarm ralph resume' does not bring a stopped loop back ('swarm ralph spawn --replace' does).

Examples:
   swarm ralph stop agent
   swarm ralph stop agent --rm-worktree
   swarm ralph stop agent --rm-worktree --force-dirty`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "rm-worktree", Usage: "also remove the worker's git worktree (kept if it has uncommitted changes)"},
			&cli.BoolFlag{Name: "force-dirty", Usage: "with --rm-worktree: remove it even with uncommitted changes"},
			&cli.Float64Flag{Name: "grace", Usage: "seconds between SIGTERM and SIGKILL", Value: 10},
		},
		Action: func(c *cli.Context) error {
			o := killOptions{Names: c.Args().Slice(), RmWorktree: c.Bool("rm-worktree"),
				ForceDirty: c.Bool("force-dirty"), Grace: c.Float64("grace")}
			check := func() error {
				if err := exactlyOneName(o.Names, "swarm ralph stop NAME"); err != nil {
					return err
				}
				return o.check()
			}
			return withEnv(c, check, func(e *env) error { return runKill(e, o) })
		},
	}
}
