package swarm

import (
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
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

// runRalphPause pauses through the loop's own transition, decided on the state as it is under
// the loop lock: a monitor that stops or fails the loop meanwhile is never overruled.
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
	_, _, err = ld.Transition(time.Now(), func(s *ralph.State) (ralph.Decision, error) {
		return ralph.Pause(s, "paused by user", "paused")
	})
	switch {
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
