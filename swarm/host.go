package swarm

import (
	"github.com/urfave/cli/v2"
)

// `swarm host`: the other machines workers run on.

func hostCommand() *cli.Command {
	return &cli.Command{
		Name:  "host",
		Usage: "other machines to run workers on, over SSH: add, ls, rm",
		Description: `A host is a machine you can already reach with ssh (your ~/.ssh/config, keys and agent
do the logging in; swarm never prompts). Every host runs the same swarm, with its own state
directory and its own Regent, so its loops go on whatever happens to the network or to
this machine. Workers there are named NAME@HOST in every worker command, and spawn,
agent, ls and dashboard take --host HOST; swarm ls shows every host's workers.

One connection per host is kept open for a minute after its last use (OpenSSH's
ControlPersist), so commands in a row skip the handshake; swarm host disconnect closes it
at once. SWARM_SSH_COMMAND replaces the ssh command ("ssh -F ./ssh_config").

Examples:
   swarm host add box me@box.example.com
   swarm host add gpu 10.0.0.7:2222 --install     # copy this swarm there
   swarm host ls
   swarm spawn --host box --name w1 --ralph --prompt-file PROMPT.md --max-iterations 20 -- claude
   swarm peek w1@box
   swarm host rm box`,
		Subcommands: []*cli.Command{
			hostAddCommand(), hostLsCommand(), hostRmCommand(), hostSyncCommand(), hostDisconnectCommand(),
			hostHelloCommand(), hostRunCommand(), hostSpawnCommand(), hostPutCommand(), hostRowsCommand(),
			hostLsReplyCommand(), hostSpawnedCommand(), hostEventsCommand(),
		},
	}
}
