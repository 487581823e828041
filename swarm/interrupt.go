package swarm

import (
	"fmt"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/state"
)

// interruptOptions are the arguments of `swarm interrupt`.
type interruptOptions struct {
	Names []string
	All   bool
}

func interruptCommand() *cli.Command {
	return &cli.Command{
		Name:      "interrupt",
		Usage:     "press Ctrl-C in a worker (SIGINT to a process worker's group)",
		ArgsUsage: "NAME...",
		Description: `Examples:
   swarm interrupt w1
   swarm interrupt --all`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every running worker"}},
		Action: func(c *cli.Context) error {
			o := interruptOptions{Names: c.Args().Slice(), All: c.Bool("all")}
			return withEnv(c, nil, func(e *env) error { return runInterrupt(e, o) })
		},
	}
}

func runInterrupt(e *env, o interruptOptions) error {
	ws, _, err := e.Targets(o.Names, o.All, running)
	if err != nil {
		return err
	}
	for _, w := range ws {
		if w.Status != state.StatusRunning {
			return fail("worker '%s' is not running", w.Name)
		}
	}
	for _, w := range ws {
		if w.Tmux != nil {
			err = e.TmuxFor(w).SendKeys(w.Tmux.PaneID, "C-c")
		} else {
			err = syscall.Kill(-w.PID, syscall.SIGINT)
		}
		if err != nil {
			return fail("cannot interrupt '%s': %w", w.Name, err)
		}
		fmt.Fprintf(e.stdout, "interrupted %s\n", w.Name)
	}
	return nil
}
