package swarm

import (
	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/swarm/regent"
)

// The Regent sends the heartbeats. `heartbeat __keep` and `__run` stay, hidden, only because
// an older swarm started its heartbeat runner with them and its processes may still run them
// with this executable after an upgrade (see regent.HandOverHeartbeats): they hand the
// heartbeats over to the Regent and end.

func heartbeatHandOverCommand(name string) *cli.Command {
	return &cli.Command{
		Name:   name,
		Hidden: true,
		Action: func(c *cli.Context) error {
			return withEnv(c, nil, func(e *env) error { return failed(regent.HandOverHeartbeats(e.Machine, name == "__keep")) })
		},
	}
}
