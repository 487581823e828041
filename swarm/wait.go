package swarm

import (
	"cmp"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/state"
)

// waitOptions are the arguments of `swarm wait`.
type waitOptions struct {
	Names   []string
	All     bool
	Timeout float64 // seconds; 0 waits forever
	Poll    time.Duration
	Format  string
}

func (o waitOptions) check() error {
	if _, err := checkFormat(cmp.Or(o.Format, "text"), "text", "json"); err != nil {
		return err
	}
	return notNegative(o.Timeout, "--timeout")
}

// waitEvent is one worker's outcome, as `wait --format json` gives it (one object per line).
type waitEvent struct {
	Worker   string `json:"worker"`
	Status   string `json:"status"` // exited, or running when the wait timed out
	ExitCode *int   `json:"exit_code"`
	Timeout  bool   `json:"timeout"`
	Time     string `json:"time"`
}

// report tells how a worker's wait ended: it exited (w: its record, nil when it is gone) or
// the wait timed out.
func (o waitOptions) report(e *env, name string, w *state.Worker, timedOut bool) {
	if o.Format == "json" {
		ev := waitEvent{Worker: name, Status: "exited", Timeout: timedOut, Time: stamp(time.Now())}
		if timedOut {
			ev.Status = "running"
		} else if w != nil {
			ev.ExitCode = w.ExitCode
		}
		_ = writeJSONLine(e.stdout, ev)
		return
	}
	if timedOut {
		fmt.Fprintf(e.stdout, "%s: still running (timeout)\n", name)
		return
	}
	fmt.Fprintf(e.stdout, "%s: exited\n", name)
}

func waitCommand() *cli.Command {
	return &cli.Command{
		Name:      "wait",
		Usage:     "wait until workers exit",
		ArgsUsage: "NAME...",
		Description: `Blocks until each worker has exited, printing "NAME: exited" as each one does. With
--timeout, prints "NAME: still running (timeout)" for the rest and exits 1.

Examples:
   swarm wait build
   swarm wait --all --timeout 600
   swarm wait build --format json     {"worker":"build","status":"exited","exit_code":0,...}`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every running worker"},
			&cli.Float64Flag{Name: "timeout", Usage: "give up after this many seconds (0: wait forever)"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text, or json: one object per worker as it ends, {worker, status, exit_code, timeout, time}"},
		},
		Action: func(c *cli.Context) error {
			o := waitOptions{Names: c.Args().Slice(), All: c.Bool("all"), Timeout: c.Float64("timeout"), Poll: 100 * time.Millisecond, Format: c.String("format")}
			return withEnv(c, o.check, func(e *env) error { return runWait(e, o) })
		},
	}
}

func runWait(e *env, o waitOptions) error {
	ws, _, err := e.targets(o.Names, o.All, running)
	if err != nil {
		return err
	}
	var deadline time.Time
	if o.Timeout > 0 {
		deadline = time.Now().Add(time.Duration(o.Timeout * float64(time.Second)))
	}
	pending := map[string]bool{}
	for _, w := range ws {
		pending[w.Name] = true
	}
	for {
		if err := e.reportExited(o, ws, pending); err != nil {
			return err
		}
		if len(pending) == 0 {
			return nil
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			for _, w := range ws {
				if pending[w.Name] {
					o.report(e, w.Name, nil, true)
				}
			}
			return exitCode(ExitError)
		}
		time.Sleep(o.Poll)
	}
}

// reportExited prints and forgets the pending workers that are no longer running.
func (e *env) reportExited(o waitOptions, ws []*state.Worker, pending map[string]bool) error {
	lv, err := e.live()
	if err != nil {
		return err
	}
	all, err := e.dir.LoadWorkers(e.warnErr)
	if err != nil {
		return fail("%v", err)
	}
	for _, w := range ws {
		if !pending[w.Name] {
			continue
		}
		cur := all.Get(w.Name)
		if cur != nil {
			e.reconcile(lv, cur)
		}
		if cur == nil || cur.Status != state.StatusRunning {
			o.report(e, w.Name, cur, false)
			delete(pending, w.Name)
		}
	}
	return nil
}
