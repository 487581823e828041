package swarm

import (
	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
)

// ralphRunOptions are the arguments of `swarm ralph run`.
type ralphRunOptions struct {
	Args    []string
	Verbose bool // also show what checkers and hooks print
}

func (o ralphRunOptions) check() error {
	return exactlyOneName(o.Args, "swarm ralph run NAME")
}

// `swarm ralph run` drives a loop in this terminal: what the background monitor does, for a
// loop made with `ralph spawn --no-run` or run under the user's own supervisor.
func ralphRunCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run a ralph loop's monitor in this terminal (after ralph spawn --no-run)",
		ArgsUsage: "NAME",
		Description: `Watches and restarts the loop's agent here, printing what happens, until the loop ends:
exit 0 when it completes or is stopped, 1 when it fails (or uses its iterations without its
checks passing), 3 when it stagnated, 130 when it was paused (Ctrl-C, SIGTERM, swarm ralph
pause); the loop's summary is printed at the end. Ctrl-C pauses the loop after the current
iteration (a second Ctrl-C ends the agent at once). Refused while a monitor already drives
the loop.

Examples:
   swarm ralph spawn --name agent --no-run --prompt-file PROMPT.md --max-iterations 20 -- claude
   swarm ralph run agent`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "verbose", Usage: "also show what checkers and hooks print"}},
		Action: func(c *cli.Context) error {
			o := ralphRunOptions{Args: c.Args().Slice(), Verbose: c.Bool("verbose")}
			return withEnv(c, o.check, func(e *env) error { return runRalphRun(e, o) })
		},
	}
}

func runRalphRun(e *env, o ralphRunOptions) error {
	name := o.Args[0]
	_, ld, st, err := loadLoop(e, name)
	if err != nil {
		return err
	}
	if ld.MonitorAlive() {
		return fail("a monitor is already running the loop for '%s' (pid %d)", name, st.MonitorPID)
	}
	switch st.Status {
	case ralph.StatusPaused:
		return fail("the ralph loop for '%s' is paused; resume it with 'swarm ralph resume %s'", name, name)
	case ralph.StatusStopped, ralph.StatusFailed:
		return fail("the ralph loop for '%s' has ended (%s); 'swarm ralph resume %s' runs it again", name, st.Status, name)
	}
	return runMonitor(e.onServerOf(name), monitorOptions{name: name, out: e.stdout, foreground: true, verbose: o.Verbose})
}
