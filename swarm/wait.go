package swarm

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// waitOptions are the arguments of `swarm wait`.
type waitOptions struct {
	Names   []string
	All     bool
	Timeout float64 // seconds; 0 waits forever
	Poll    time.Duration
	Format  string
	// ExitCode: exit with the code of the first worker that ended with one other than 0.
	ExitCode bool
	// Until: wait until each worker reaches this state instead (wait_until.go).
	Until string
}

func (o waitOptions) check() error {
	if _, err := checkFormat(cmp.Or(o.Format, "text"), "text", "json"); err != nil {
		return err
	}
	if o.Until != "" && !slices.Contains(untilGoals, o.Until) {
		return fail("invalid --until '%s' (one of %s)", o.Until, strings.Join(untilGoals, ", "))
	}
	if o.Until != "" && o.ExitCode {
		return fail("--until and --exit-code cannot go together (--until ended waits for the end; --exit-code gives its code)")
	}
	return notNegative(o.Timeout, "--timeout")
}

// waitEvent is one worker's outcome, as `wait --format json` gives it (one object per line).
type waitEvent struct {
	Worker   string `json:"worker"`
	Status   string `json:"status"` // exited, or running when the wait timed out
	ExitCode *int   `json:"exit_code"`
	// State is the worker's state word once it has ended (done, stopped, killed, ...).
	State   string `json:"state,omitempty"`
	Timeout bool   `json:"timeout"`
	Time    string `json:"time"`
}

// waitEnd is how a worker's wait ended: the line and the code --exit-code gives it.
type waitEnd struct {
	line  string // "build: exited 4", "agent: exited (loop done)"
	state string // its state word
	code  int
}

// endOfWait is how a worker that no longer runs ended (w: its record, nil when it is gone;
// loop: its loop's state, nil for no loop; am: the loop's agent mode). A loop's agent is
// ended by the loop with a signal, so a loop worker's code is its loop's, the one the loop
// run in the foreground would have exited with; a worker whose code is unknown gives 1.
func endOfWait(name string, w *state.Worker, loop *ralph.State, am *ralph.AgentMode) waitEnd {
	if w == nil {
		return waitEnd{line: name + ": exited", state: wordGone, code: ExitError}
	}
	sw := stateOf(w.Status, w.ExitCode, loop)
	switch {
	case loop != nil:
		return waitEnd{line: fmt.Sprintf("%s: exited (%s)", name, sw.inWords()), state: sw.word, code: foregroundExit(loop, am)}
	case w.ExitCode != nil:
		return waitEnd{line: fmt.Sprintf("%s: exited %d", name, *w.ExitCode), state: sw.word, code: *w.ExitCode}
	}
	return waitEnd{line: name + ": exited", state: sw.word, code: ExitError}
}

// report tells how a worker's wait ended: it exited (w: its record, nil when it is gone) or
// the wait timed out. It returns the code --exit-code gives the worker.
func (o waitOptions) report(e *env, name string, w *state.Worker, timedOut bool) int {
	if timedOut {
		if o.Format == "json" {
			_ = writeJSONLine(e.stdout, waitEvent{Worker: name, Status: "running", Timeout: true, Time: stamp(time.Now())})
		} else {
			fmt.Fprintf(e.stdout, "%s: still running (timeout)\n", name)
		}
		return ExitError
	}
	var loop *ralph.State
	var am *ralph.AgentMode
	if w != nil {
		if loop = workerLoop(e, w); loop != nil {
			am, _ = ralph.DirFor(e.Dir(), name).LoadAgentMode()
		}
	}
	end := endOfWait(name, w, loop, am)
	if o.Format == "json" {
		ev := waitEvent{Worker: name, Status: "exited", State: end.state, Time: stamp(time.Now())}
		if w != nil {
			ev.ExitCode = w.ExitCode
		}
		_ = writeJSONLine(e.stdout, ev)
	} else {
		fmt.Fprintln(e.stdout, end.line)
	}
	return end.code
}

func waitCommand() *cli.Command {
	return &cli.Command{
		Name:      "wait",
		Usage:     "wait until workers exit, or are done, need a person or sit idle (--until)",
		ArgsUsage: "NAME...",
		Description: `Blocks until each worker has exited (a loop's worker: until its loop has ended or
is paused; one parked on a usage limit is still waited for), printing how as each one does: "NAME: exited 4"
(its exit code; "NAME: exited" when it is not known), or for a loop's worker how its loop
ended, "NAME: exited (loop done)". With --timeout, prints "NAME: still running (timeout)" for
the rest and exits 1.

Exits 0 once every worker has exited, whatever their codes. With --exit-code it exits with
the code of the first worker (in the order they ended) that ended with one other than 0: a
loop worker's is its loop's (0 done, 1 failed, 3 stagnated, 130 paused, as --foreground), a
worker whose code is not known counts as 1.

--until waits for a state instead, printing each worker's as it comes to it: done (its loop
ended done), needs-person (its loop's agent waits for a person: a permission prompt, a
dialog; "NAME: needs a person (dialog: trust-folder)"), idle (the agent sits at its prompt,
as the dashboard says), ended (the loop ended, any way, or the worker exited; a paused loop
has not ended). With --all, done and needs-person wait for the loops, idle for the workers
in tmux. It exits 0 once every worker is there, 1 when one ended without getting there
("NAME: exited (loop failed: ...), not done") or --timeout passed ("NAME: running, not done
(timeout)"), 2 for no such worker. It wakes within a second of the change, and costs
nothing while it waits (swarm guide events).

Examples:
   swarm wait build
   swarm wait build --exit-code && echo "build passed"
   swarm wait --all --timeout 600
   swarm wait build --format json     {"worker":"build","status":"exited","exit_code":0,...}
   swarm wait w1 w2 --until done --timeout 3600
   swarm wait w1 --until needs-person && swarm attach w1
   swarm wait w1 --until idle --format json   {"worker":"w1","until":"idle","reached":true,...}`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every running worker"},
			&cli.Float64Flag{Name: "timeout", Usage: "give up after this many seconds (0: wait forever)"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text, or json: one object per worker as it ends, {worker, status, exit_code, state, timeout, time}"},
			&cli.BoolFlag{Name: "exit-code", Usage: "exit with the code of the first worker that ended with one other than 0"},
			&cli.StringFlag{Name: "until", Usage: "wait until each worker is: done, needs-person, idle or ended"},
		},
		Action: func(c *cli.Context) error {
			o := waitOptions{Names: c.Args().Slice(), All: c.Bool("all"), Timeout: c.Float64("timeout"), Poll: 100 * time.Millisecond,
				Format: c.String("format"), ExitCode: c.Bool("exit-code"), Until: c.String("until")}
			return withEnv(c, o.check, func(e *env) error { return runWait(e, o) })
		},
	}
}

func runWait(e *env, o waitOptions) error {
	if o.Until != "" {
		return runWaitUntil(e, o)
	}
	ws, _, err := e.Targets(o.Names, o.All, running)
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
	first := ExitOK // the first code other than 0, in the order the workers ended
	for {
		codes, err := e.reportExited(o, ws, pending)
		if err != nil {
			return err
		}
		for _, c := range codes {
			if first == ExitOK {
				first = c
			}
		}
		if len(pending) == 0 {
			if o.ExitCode {
				return exitCode(first)
			}
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

// reportExited prints and forgets the pending workers that are no longer running, and
// returns the codes other than 0 they give --exit-code.
func (e *env) reportExited(o waitOptions, ws []*state.Worker, pending map[string]bool) ([]int, error) {
	lv, err := e.Live()
	if err != nil {
		return nil, err
	}
	all, err := e.Dir().LoadWorkers(e.warnErr)
	if err != nil {
		return nil, fail("%w", err)
	}
	var codes []int
	for _, w := range ws {
		if !pending[w.Name] {
			continue
		}
		cur := all.Get(w.Name)
		if cur != nil {
			e.Reconcile(lv, cur)
		}
		if cur == nil || cur.Status != state.StatusRunning {
			if loopGoesOn(e, cur) {
				continue
			}
			if c := o.report(e, w.Name, cur, false); c != ExitOK {
				codes = append(codes, c)
			}
			delete(pending, w.Name)
		}
	}
	return codes, nil
}

// loopGoesOn reports whether a worker whose agent has ended belongs to a loop that will start
// another: one parked on a usage limit, or between agents, with its monitor alive. Waiting
// for such a worker waits for its loop.
func loopGoesOn(e *env, w *state.Worker) bool {
	if w == nil {
		return false
	}
	loop := workerLoop(e, w)
	if loop == nil || (loop.Status != ralph.StatusWaiting && loop.Status != ralph.StatusRunning) {
		return false
	}
	return ralph.DirFor(e.Dir(), w.Name).MonitorAlive()
}
