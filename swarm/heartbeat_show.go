package swarm

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/swarm/heartbeat"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// heartbeatJSON is a heartbeat as list and status print it: its state file, and when the next
// beat is due.
type heartbeatJSON struct {
	*heartbeat.State
	NextBeatAt *string `json:"next_beat_at"`
}

func viewHeartbeat(h *heartbeat.State) heartbeatJSON {
	v := heartbeatJSON{State: h}
	if h.Status == heartbeat.Active {
		at := h.NextBeat().Format(time.RFC3339)
		v.NextBeatAt = &at
	}
	return v
}

func heartbeatListCommand() *cli.Command {
	return &cli.Command{
		Name:    "list",
		Aliases: []string{"ls"},
		Usage:   "list heartbeats",
		Description: `Examples:
   swarm heartbeat ls
   swarm heartbeat list --format json`,
		Flags: []cli.Flag{&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "table", Usage: "table or json"}},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			check := func() error { _, err := checkFormat(format, "table", "json"); return err }
			return withEnv(c, check, func(e *env) error { return runHeartbeatList(e, format) })
		},
	}
}

func runHeartbeatList(e *env, format string) error {
	s := heartbeat.StoreFor(e.Dir())
	list := s.List(e.warnErr)
	if err := keepRegentUp(e, s); err != nil {
		return err
	}
	if format == "json" {
		out := make([]heartbeatJSON, 0, len(list))
		for _, h := range list {
			out = append(out, viewHeartbeat(h))
		}
		return printJSON(e, out)
	}
	if len(list) == 0 {
		fmt.Fprintln(e.stdout, "No heartbeats found")
		return nil
	}
	now := time.Now()
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKER\tINTERVAL\tNEXT BEAT\tEXPIRES\tSTATUS\tBEATS")
	for _, h := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\n", h.WorkerName, words.Terse(h.Interval()),
			nextBeatText(h, now), expiresText(h, now), h.Status, h.BeatCount)
	}
	return tw.Flush()
}

// keepRegentUp starts the Regent when a heartbeat is active and nothing sends it (after a
// reboot or a tmux server restart).
func keepRegentUp(e *env, s heartbeat.Store) error {
	if s.AnyActive() {
		return regent.Ensure(e.Machine)
	}
	return nil
}

func nextBeatText(h *heartbeat.State, now time.Time) string {
	if h.Status != heartbeat.Active {
		return "-"
	}
	return "in " + words.Terse(max(h.NextBeat().Sub(now), 0))
}

func expiresText(h *heartbeat.State, now time.Time) string {
	exp := h.Expiry()
	switch {
	case exp.IsZero():
		return "never"
	case !exp.After(now):
		return "passed"
	}
	return "in " + words.Terse(exp.Sub(now))
}

func heartbeatStatusCommand() *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show one heartbeat: last and next beat, beats sent",
		ArgsUsage: "NAME",
		Description: `Examples:
   swarm heartbeat status builder
   swarm heartbeat status builder --format json`,
		Flags: []cli.Flag{&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Usage: "text or json"}},
		Action: func(c *cli.Context) error {
			args, format := c.Args().Slice(), c.String("format")
			check := func() error {
				if err := exactlyOneName(args, "swarm heartbeat status NAME"); err != nil {
					return err
				}
				_, err := checkFormat(format, "text", "json")
				return err
			}
			return withEnv(c, check, func(e *env) error { return runHeartbeatStatus(e, args[0], format) })
		},
	}
}

func runHeartbeatStatus(e *env, name, format string) error {
	if err := worker.ValidateName(name); err != nil {
		return err
	}
	s := heartbeat.StoreFor(e.Dir())
	h, err := s.Load(name)
	if err != nil {
		return noneNamed(e, name, fail("No heartbeat found for %s", name))
	}
	if err := keepRegentUp(e, s); err != nil {
		return err
	}
	if format == "json" {
		return printJSON(e, viewHeartbeat(h))
	}
	now := time.Now()
	last := "none"
	if t := h.LastBeat(); !t.IsZero() {
		last = t.Local().Format("2006-01-02 15:04:05")
	}
	fmt.Fprintf(e.stdout, "Worker: %s\nStatus: %s\nInterval: %s\nMessage: %s\n", h.WorkerName, h.Status,
		words.Terse(h.Interval()), h.Message)
	fmt.Fprintf(e.stdout, "Expires: %s\nLast beat: %s\nNext beat: %s\nBeat count: %d\n", expiresText(h, now), last,
		nextBeatText(h, now), h.BeatCount)
	return nil
}
