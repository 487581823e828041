package swarm

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/regent"
)

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show one worker's status (exit 0 while its process runs, 1 when it does not, 2 no such worker)",
		ArgsUsage: "NAME",
		Description: `Prints one line about the worker: its state (running, paused, waiting, done, killed,
stopped, failed, orphaned), then what qualifies it (the exit code, the loop's reason;
unsandboxed for an agent that was to be confined and runs without its sandbox), where it
runs or ran, and for how long:
   w1: running (tmux window swarm:w1, uptime 5m)
   w1: stopped (exit 0, pid 4242, ran 5m)
   agent: done (tmux window swarm:agent, ran 42m)
The exit code tells scripts the answer without parsing: 0 while the worker's process runs
(a paused loop's agent finishing its iteration too), 1 when it does not, 2 for no such worker.

Examples:
   swarm status w1
   swarm status w1 >/dev/null && echo "still working"`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "text or json", Value: "text"},
		},
		Action: func(c *cli.Context) error {
			o := statusOptions{Args: c.Args().Slice(), Format: c.String("format")}
			return withEnv(c, o.check, func(e *env) error { return runStatus(e, o) })
		},
	}
}

// statusOptions are the arguments of `swarm status`.
type statusOptions struct {
	Args   []string
	Format string
}

func (o statusOptions) check() error {
	if err := exactlyOneName(o.Args, "swarm status NAME"); err != nil {
		return err
	}
	_, err := checkFormat(o.Format, "text", "json")
	return err
}

func runStatus(e *env, o statusOptions) error {
	regent.Revive(e.Machine)
	w, _, err := e.Load(o.Args[0])
	if err != nil {
		return err
	}
	loop := workerLoop(e, w)
	if o.Format == "json" {
		if err := printJSON(e, statusValue(w, loop)); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(e.stdout, statusLine(w, stateOf(w.Status, w.ExitCode, loop), e.endedAt(w), time.Now()))
	}
	if w.Status != state.StatusRunning {
		return exitCode(ExitError)
	}
	return nil
}

// statusValue is what `status --format json` prints of the worker w, with its loop state.
func statusValue(w *state.Worker, loop *ralph.State) workerJSON { return stateJSON(w, loop) }

// endedAt is when a worker that no longer runs ended, as far as swarm saw it (its exit code's
// record); zero when not known.
func (e *env) endedAt(w *state.Worker) time.Time {
	if w.Status == state.StatusRunning {
		return time.Time{}
	}
	fi, err := os.Stat(e.Dir().ExitPath(w.Name))
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// statusLine is one worker's status: its state word, then what qualifies it, where it runs
// (or ran) and for how long: "w1: stopped (exit 0, pid 4242, ran 5m)". ended is when it ended
// (zero: not known, or still running).
func statusLine(w *state.Worker, sw stateWord, ended, now time.Time) string {
	if w.Status == state.StatusOrphaned {
		return fmt.Sprintf("%s: orphaned (its processes run without their window or process group; 'swarm kill %s' ends them)", w.Name, w.Name)
	}
	var parts []string
	if sw.detail != "" {
		parts = append(parts, sw.detail)
	}
	if unsandboxed(w.Sandbox) {
		parts = append(parts, wordUnsandboxed)
	}
	switch {
	case w.Tmux != nil:
		parts = append(parts, fmt.Sprintf("tmux window %s:%s", w.Tmux.Session, w.Tmux.Window))
	case w.PID != 0:
		parts = append(parts, fmt.Sprintf("pid %d", w.PID))
	}
	switch {
	case w.Worktree != nil && w.Worktree.Clone:
		parts = append(parts, "cloned worktree "+w.Worktree.Path)
	case w.Worktree != nil:
		parts = append(parts, "worktree "+w.Worktree.Path)
	}
	switch {
	case w.Status == state.StatusRunning:
		parts = append(parts, "uptime "+words.Short(now.Sub(w.Started)))
	case !ended.IsZero() && !w.Started.IsZero() && ended.After(w.Started):
		parts = append(parts, "ran "+words.Short(ended.Sub(w.Started)))
	}
	if len(parts) == 0 {
		return w.Name + ": " + sw.word
	}
	return fmt.Sprintf("%s: %s (%s)", w.Name, sw.word, strings.Join(parts, ", "))
}
