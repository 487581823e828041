package swarm

import (
	"fmt"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/swarm/heartbeat"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// heartbeatChange is one of stop, pause, resume: from which statuses, to which.
type heartbeatChange struct {
	verb string // stopped, paused, resumed
	from []string
	to   string
}

var (
	hbStop   = heartbeatChange{"stopped", []string{heartbeat.Active, heartbeat.Paused}, heartbeat.Stopped}
	hbPause  = heartbeatChange{"paused", []string{heartbeat.Active}, heartbeat.Paused}
	hbResume = heartbeatChange{"resumed", []string{heartbeat.Paused}, heartbeat.Active}
)

func heartbeatStopCommand() *cli.Command {
	return heartbeatChangeCommand("stop", "stop a worker's heartbeat for good", hbStop)
}

func heartbeatPauseCommand() *cli.Command {
	return heartbeatChangeCommand("pause", "hold a worker's heartbeat until resumed", hbPause)
}

func heartbeatResumeCommand() *cli.Command {
	return heartbeatChangeCommand("resume", "go on with a paused heartbeat", hbResume)
}

func heartbeatChangeCommand(name, usage string, ch heartbeatChange) *cli.Command {
	return &cli.Command{
		Name:        name,
		Usage:       usage,
		ArgsUsage:   "NAME",
		Description: "Example:\n   swarm heartbeat " + name + " builder",
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			check := func() error { return exactlyOneName(args, "swarm heartbeat "+name+" NAME") }
			return withEnv(c, check, func(e *env) error { return runHeartbeatChange(e, args[0], ch) })
		},
	}
}

func runHeartbeatChange(e *env, name string, ch heartbeatChange) error {
	if err := worker.ValidateName(name); err != nil {
		return err
	}
	var none, missing bool
	_, err := heartbeat.StoreFor(e.Dir()).Update(name, func(cur *heartbeat.State) (*heartbeat.State, error) {
		switch {
		case cur == nil:
			none, missing = true, true
			return nil, nil
		case !slices.Contains(ch.from, cur.Status):
			if ch.to == heartbeat.Stopped {
				none = true
				return nil, nil
			}
			return nil, fail("Heartbeat for %s is not %s (status: %s)", name, ch.from[0], cur.Status)
		}
		cur.Status = ch.to
		return cur, nil
	})
	switch {
	case err != nil:
		return err
	case none && ch.to == heartbeat.Stopped:
		if missing {
			if err := noneNamed(e, name, nil); err != nil {
				return err
			}
		}
		fmt.Fprintf(e.stdout, "No active heartbeat for %s\n", name)
		return nil
	case none:
		return noneNamed(e, name, fail("No heartbeat found for %s", name))
	}
	if ch.to == heartbeat.Active {
		if err := regent.Ensure(e.Machine); err != nil {
			return err
		}
	} else {
		regent.Wake(e.Machine) // it leaves when nothing needs it any more
	}
	fmt.Fprintf(e.stdout, "Heartbeat %s for %s\n", ch.verb, name)
	return nil
}
