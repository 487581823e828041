package swarm

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/swarm/heartbeat"
	"github.com/swarm-dev/swarm/swarm/regent"
)

// `swarm heartbeat`: nudge a worker on a schedule, for an agent that stalls on a usage limit
// and picks up again when told to continue.

func heartbeatCommand() *cli.Command {
	return &cli.Command{
		Name:  "heartbeat",
		Usage: "send a worker a message on a schedule (\"continue\" every 4h), to get past usage limits",
		Description: `A heartbeat types its message into a tmux worker at every interval until it expires, is
stopped, or the worker ends. The Regent, swarm's one background process, sends every
heartbeat; they survive a restart (the next heartbeat command starts the Regent again).

Examples:
   swarm heartbeat start builder --interval 4h --expire 24h
   swarm heartbeat start builder --interval 30m --message "go on with the plan" --force
   swarm heartbeat ls
   swarm heartbeat status builder --format json
   swarm heartbeat pause builder
   swarm heartbeat stop builder`,
		Subcommands: []*cli.Command{
			heartbeatStartCommand(),
			heartbeatStopCommand(),
			heartbeatPauseCommand(),
			heartbeatResumeCommand(),
			heartbeatListCommand(),
			heartbeatStatusCommand(),
			heartbeatHandOverCommand("__run"),
			heartbeatHandOverCommand("__keep"),
		},
	}
}

// heartbeatStartOptions are the arguments of `swarm heartbeat start`.
type heartbeatStartOptions struct {
	Args     []string
	Interval string
	Expire   string
	Message  string
	Force    bool
}

func (o heartbeatStartOptions) check() error {
	if err := exactlyOneName(o.Args, "swarm heartbeat start NAME --interval DURATION"); err != nil {
		return err
	}
	_, _, err := o.durations()
	return err
}

// durations reads --interval and --expire (zero expire: never).
func (o heartbeatStartOptions) durations() (interval, expire time.Duration, err error) {
	if o.Interval == "" {
		return 0, 0, fail(`Required flag "interval" not set`)
	}
	if interval, err = heartbeat.ParseDuration(o.Interval); err != nil {
		return 0, 0, fail("invalid interval '%s' (examples: 4h, 30m, 90s, 1h30m, 3600)", o.Interval)
	}
	if o.Expire != "" {
		if expire, err = heartbeat.ParseDuration(o.Expire); err != nil {
			return 0, 0, fail("invalid expire '%s' (examples: 24h, 2d, 90m)", o.Expire)
		}
	}
	return interval, expire, nil
}

func heartbeatStartCommand() *cli.Command {
	return &cli.Command{
		Name:      "start",
		Usage:     "start nudging a tmux worker at an interval",
		ArgsUsage: "NAME",
		Description: `Examples:
   swarm heartbeat start builder --interval 4h
   swarm heartbeat start builder --interval 4h --expire 24h --message continue
   swarm heartbeat start builder --interval 1h --force     # replace the one it has`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "interval", Usage: "time between beats: 4h, 30m, 90s, 1h30m or seconds (required)"},
			&cli.StringFlag{Name: "expire", Usage: "stop after this long (default: never)"},
			&cli.StringFlag{Name: "message", Usage: "what each beat sends", Value: heartbeat.DefaultMessage},
			&cli.BoolFlag{Name: "force", Usage: "replace an active heartbeat"},
		},
		Action: func(c *cli.Context) error {
			o := heartbeatStartOptions{Args: c.Args().Slice(), Interval: c.String("interval"), Expire: c.String("expire"),
				Message: c.String("message"), Force: c.Bool("force")}
			return withEnv(c, o.check, func(e *env) error { return runHeartbeatStart(e, o) })
		},
	}
}

func runHeartbeatStart(e *env, o heartbeatStartOptions) error {
	w, _, err := e.Load(o.Args[0])
	if err != nil {
		return err
	}
	if w.Tmux == nil {
		return fail("heartbeat requires a tmux worker ('%s' runs as a process)", w.Name)
	}
	interval, expire, _ := o.durations()
	return startHeartbeat(e, w.Name, interval, expire, o.Message, o.Force, "Heartbeat started for "+w.Name)
}

// startHeartbeat records an active heartbeat and has the Regent send it; what it prints
// starts with lead.
func startHeartbeat(e *env, name string, interval, expire time.Duration, message string, force bool, lead string) error {
	_, err := heartbeat.StoreFor(e.Dir()).Update(name, func(cur *heartbeat.State) (*heartbeat.State, error) {
		if cur != nil && cur.Status == heartbeat.Active && !force {
			return nil, fail("heartbeat already active for '%s' (use --force to replace)", name)
		}
		return heartbeat.New(name, interval, expire, message, time.Now()), nil
	})
	if err != nil {
		return err
	}
	if interval < time.Minute {
		e.warnf("very short interval (%s), consider using at least 1m", words.Terse(interval))
	}
	if err := regent.Ensure(e.Machine); err != nil {
		return err
	}
	until := "no expiration"
	if expire > 0 {
		until = "expires in " + words.Terse(expire)
	}
	fmt.Fprintf(e.stdout, "%s (every %s, %s)\n", lead, words.Terse(interval), until)
	return nil
}

// heartbeatSpec is a heartbeat asked for with spawn's --heartbeat flags.
type heartbeatSpec struct {
	interval, expire time.Duration
	message          string
}

// heartbeatFromFlags reads spawn's --heartbeat, --heartbeat-expire and --heartbeat-message;
// nil without --heartbeat.
func heartbeatFromFlags(c *cli.Context) (*heartbeatSpec, error) {
	if c.String("heartbeat") == "" {
		if c.IsSet("heartbeat-expire") {
			return nil, fail("--heartbeat-expire needs --heartbeat")
		}
		return nil, nil
	}
	o := heartbeatStartOptions{Interval: c.String("heartbeat"), Expire: c.String("heartbeat-expire")}
	interval, expire, err := o.durations()
	if err != nil {
		return nil, err
	}
	return &heartbeatSpec{interval: interval, expire: expire, message: c.String("heartbeat-message")}, nil
}

// startSpawnHeartbeat starts the heartbeat a spawn asked for, if any.
func startSpawnHeartbeat(e *env, name string, hb *heartbeatSpec) error {
	if hb == nil {
		return nil
	}
	return startHeartbeat(e, name, hb.interval, hb.expire, hb.message, true, "heartbeat started")
}
