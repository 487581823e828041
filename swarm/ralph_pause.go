package swarm

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/loop"
)

func ralphPauseCommand() *cli.Command {
	return &cli.Command{
		Name:      "pause",
		Usage:     "let the current agent finish, then start no new iteration",
		ArgsUsage: "NAME",
		Description: `Examples:
   swarm ralph pause agent`,
		Action: func(c *cli.Context) error {
			o := ralphPauseOptions{Args: c.Args().Slice()}
			return withEnv(c, o.check, func(e *env) error { return runRalphPause(e, o) })
		},
	}
}

// ralphPauseOptions are the arguments of `swarm ralph pause`.
type ralphPauseOptions struct {
	Args []string
}

func (o ralphPauseOptions) check() error { return exactlyOneName(o.Args, "swarm ralph pause NAME") }

// runRalphPause pauses the loop (see loop.Loops.Pause) and says how it went.
func runRalphPause(e *env, o ralphPauseOptions) error {
	name := o.Args[0]
	_, ld, _, err := loadLoop(e, name)
	if isNotFound(err) {
		// A loop whose worker record is gone is still paused by its name.
		_, ld, _, err = loadLoopHistory(e, name, err)
	}
	if err != nil {
		return err
	}
	switch err := loop.On(e.Machine).Pause(name); {
	case err == nil:
		fmt.Fprintf(e.stdout, "paused ralph loop for %s\n", name)
	case errors.Is(err, ralph.ErrUnchanged):
		e.warnf("worker '%s' is already paused", name)
	case errors.Is(err, ralph.ErrNotRunning):
		e.warnf("ralph loop for '%s' is %v", name, err)
	default:
		return loopStateError(ld, name, err)
	}
	return nil
}
