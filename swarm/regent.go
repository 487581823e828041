package swarm

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/acarl005/stripansi"
	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/swarm/regent/daemon"
)

// `swarm regent`: the process that drives every supervised loop of a state directory.

func regentCommand() *cli.Command {
	return &cli.Command{
		Name:  "regent",
		Usage: "the Regent: the one process that drives and supervises every ralph loop",
		Description: `The Regent starts with the first supervised loop and leaves when no loop needs it. It runs
in the swarm-regent tmux session under a keeper that starts it again within seconds if it dies;
a new Regent takes every loop up from its state on disk.

Examples:
   swarm regent status
   swarm regent status --format json
   swarm regent logs --follow
   swarm regent restart`,
		Subcommands: []*cli.Command{regentStatusCommand(), regentLogsCommand(), regentRestartCommand(), regentServeCommand(),
			regentKeepCommand()},
	}
}

func regentServeCommand() *cli.Command {
	return &cli.Command{
		Name:   "__serve",
		Hidden: true,
		Action: func(c *cli.Context) error {
			return withEnv(c, nil, func(e *env) error { return failed(daemon.Serve(e.Machine)) })
		},
	}
}

func regentKeepCommand() *cli.Command {
	return &cli.Command{
		Name:   "__keep",
		Hidden: true,
		Action: func(c *cli.Context) error {
			return withEnv(c, nil, func(e *env) error { return failed(daemon.Keep(e.Machine)) })
		},
	}
}

func regentStatusCommand() *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show whether the Regent runs, what it watches and what it costs",
		ArgsUsage: " ",
		Flags:     []cli.Flag{&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"}},
		Action: func(c *cli.Context) error {
			format, err := formatFlag(c, "text", "json")
			if err != nil {
				return err
			}
			return withEnv(c, nil, func(e *env) error { return regentStatus(e, format) })
		},
	}
}

func regentStatus(e *env, format string) error {
	rc := regent.NewClient(e.Dir())
	if !rc.Alive() {
		why := regent.GivenUp(e.Dir())
		switch {
		case format == "json" && why != "":
			data, _ := json.Marshal(struct {
				Running   bool   `json:"running"`
				CrashLoop string `json:"crash_loop"`
			}{false, why})
			fmt.Fprintln(e.stdout, string(data))
		case format == "json":
			fmt.Fprintln(e.stdout, `{"running": false}`)
		case why != "":
			fmt.Fprintf(e.stdout, "Regent: stopped after a crash loop: %s\n", why)
		default:
			fmt.Fprintln(e.stdout, "Regent: not running (it starts with the first supervised loop)")
		}
		return nil
	}
	r, err := rc.Status()
	if err != nil {
		return fail("%w", err)
	}
	if format == "json" {
		data, _ := json.MarshalIndent(struct {
			Running bool `json:"running"`
			*regent.Report
		}{true, r}, "", "  ")
		fmt.Fprintln(e.stdout, string(data))
		return nil
	}
	fmt.Fprintf(e.stdout, "Regent: running (pid %d)\n", r.PID)
	fmt.Fprintf(e.stdout, "Uptime: %s (since %s)\n", words.Short(time.Duration(r.UptimeSeconds*float64(time.Second))), r.Started)
	fmt.Fprintf(e.stdout, "Loops watched: %d\n", len(r.Loops))
	for _, name := range r.Loops {
		fmt.Fprintf(e.stdout, "  %s\n", name)
	}
	if len(r.Heartbeats) > 0 {
		fmt.Fprintf(e.stdout, "Heartbeats sent: %d\n", len(r.Heartbeats))
		for _, name := range r.Heartbeats {
			fmt.Fprintf(e.stdout, "  %s\n", name)
		}
	}
	fmt.Fprintf(e.stdout, "Watching: %s\n", r.Watching)
	fmt.Fprintf(e.stdout, "Events: %d screen captures (%.2f/s)\n", r.Events, r.EventsPerSecond)
	fmt.Fprintf(e.stdout, "CPU so far: %.2fs\n", r.CPUSeconds)
	fmt.Fprintf(e.stdout, "Memory: %.1f MB\n", float64(r.RSSBytes)/1e6)
	if r.Panics > 0 {
		fmt.Fprintf(e.stdout, "Loops failed by a fault of the Regent: %d\n", r.Panics)
	}
	return nil
}

func regentLogsCommand() *cli.Command {
	return &cli.Command{
		Name:      "logs",
		Usage:     "show the Regent's own log (each loop's lines are in swarm ralph logs NAME --monitor)",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "keep printing lines as they are written (Ctrl-C to stop)"},
			&cli.IntFlag{Name: "lines", Aliases: []string{"n"}, Value: 50, Usage: "how many of the last lines to show"},
		},
		Action: func(c *cli.Context) error {
			return withEnv(c, nil, func(e *env) error { return regentLogs(e, c.Int("lines"), c.Bool("follow")) })
		},
	}
}

func regentLogs(e *env, n int, follow bool) error {
	path := regent.FilesOf(e.Dir()).Log
	if _, err := os.Stat(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fail("%w", err)
	} else if err != nil && !exists(state.Rotated(path)) {
		return fail("no Regent log yet: %s (the Regent starts with the first supervised loop)", path)
	}
	// Followed until interrupted: the Regent comes and goes, its log stays (and is followed
	// when it is rotated, see state.Log).
	t := tail{path: path, lines: n, follow: follow, more: func() bool { return true }, torn: isTornEntry,
		show: stripansi.Strip}
	return t.run(e)
}

func regentRestartCommand() *cli.Command {
	return &cli.Command{
		Name:      "restart",
		Usage:     "start a new Regent process; the loops go on without losing an iteration",
		ArgsUsage: " ",
		Description: `A new Regent takes every loop over where it was. After a crash loop (the Regent died five
times in two minutes, and its keeper stopped starting it) this is how it runs again, once
'swarm regent logs' has shown what killed it.

Examples:
   swarm regent restart`,
		Action: func(c *cli.Context) error {
			return withEnv(c, nil, regentRestart)
		},
	}
}

func regentRestart(e *env) error {
	old, pid, err := regent.Restart(e.Machine)
	if err != nil {
		return fail("%w", err)
	}
	switch {
	case pid == 0:
		fmt.Fprintln(e.stdout, "no loop needs the Regent; none is running")
	case old == 0:
		fmt.Fprintf(e.stdout, "started the Regent (pid %d)\n", pid)
	default:
		fmt.Fprintf(e.stdout, "restarted the Regent (pid %d, was %d)\n", pid, old)
	}
	return nil
}

// failed is a failure of the Regent's own processes with the exit code of any other, nil
// when there was none.
func failed(err error) error {
	if err != nil {
		return fail("%w", err)
	}
	return nil
}
