package swarm

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/urfave/cli/v2"
)

// killHook lets the loop layer react when a worker is killed (the loop stops for good).
var killHooks []func(e *env, name string)

func killCommand() *cli.Command {
	return &cli.Command{
		Name:      "kill",
		Usage:     "stop a worker and its whole process group",
		ArgsUsage: "NAME...",
		Description: `Sends SIGTERM to the worker's process group (agent, shells and everything they started),
waits for the grace period, then SIGKILLs what is left and removes the tmux window. The record
stays (see it in 'swarm ls') until 'swarm clean'. A ralph loop on the worker stops for good.

Examples:
   swarm kill w1
   swarm kill --all
   swarm kill w1 --rm-worktree`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every running worker"},
			&cli.BoolFlag{Name: "rm-worktree", Usage: "also remove the worker's git worktree (kept if it has uncommitted changes)"},
			&cli.BoolFlag{Name: "force-dirty", Usage: "with --rm-worktree: remove it even with uncommitted changes"},
			&cli.Float64Flag{Name: "grace", Usage: "seconds between SIGTERM and SIGKILL", Value: 10},
		},
		Action: func(c *cli.Context) error {
			if c.Float64("grace") < 0 {
				return fail("--grace must not be negative")
			}
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			ws, _, err := e.targets(c.Args().Slice(), c.Bool("all"), running)
			if err != nil {
				return err
			}
			grace := time.Duration(c.Float64("grace") * float64(time.Second))
			for _, w := range ws {
				for _, h := range killHooks {
					h(e, w.Name)
				}
				stopWorker(e, w, grace)
				waitMonitorGone(e, w.Name, 5*time.Second)
				if c.Bool("rm-worktree") && w.Worktree != nil {
					if removeWorktree(e, w.Worktree, c.Bool("force-dirty")) {
						_ = e.dir.UpdateWorkers(e.warnErr, func(all *state.Workers) error {
							if cur := all.Get(w.Name); cur != nil {
								cur.Worktree = nil
							}
							return nil
						})
					}
				}
				fmt.Fprintf(e.stdout, "killed %s\n", w.Name)
			}
			return nil
		},
	}
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
   swarm wait --all --timeout 600`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every running worker"},
			&cli.Float64Flag{Name: "timeout", Usage: "give up after this many seconds (0: wait forever)"},
		},
		Action: func(c *cli.Context) error {
			if c.Float64("timeout") < 0 {
				return fail("--timeout must not be negative")
			}
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			ws, _, err := e.targets(c.Args().Slice(), c.Bool("all"), running)
			if err != nil {
				return err
			}
			var deadline time.Time
			if t := c.Float64("timeout"); t > 0 {
				deadline = time.Now().Add(time.Duration(t * float64(time.Second)))
			}
			pending := map[string]bool{}
			for _, w := range ws {
				pending[w.Name] = true
			}
			for {
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
						fmt.Fprintf(e.stdout, "%s: exited\n", w.Name)
						delete(pending, w.Name)
					}
				}
				if len(pending) == 0 {
					return nil
				}
				if !deadline.IsZero() && time.Now().After(deadline) {
					for _, w := range ws {
						if pending[w.Name] {
							fmt.Fprintf(e.stdout, "%s: still running (timeout)\n", w.Name)
						}
					}
					return exitCode(ExitError)
				}
				time.Sleep(100 * time.Millisecond)
			}
		},
	}
}

// cleanHooks let the loop layer remove its own per-worker state when a worker is cleaned.
var cleanHooks []func(e *env, name string)

func cleanCommand() *cli.Command {
	return &cli.Command{
		Name:      "clean",
		Usage:     "remove stopped workers (record, logs, window, worktree)",
		ArgsUsage: "NAME...",
		Description: `Removes what is left of stopped workers: the record, log files, the dead tmux window (and
the session when it is empty) and, unless --rm-worktree=false, the git worktree when it has no
uncommitted changes. Running workers are refused.

Examples:
   swarm clean w1
   swarm clean --all`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every stopped worker"},
			&cli.BoolFlag{Name: "rm-worktree", Usage: "remove the worker's git worktree", Value: true},
			&cli.BoolFlag{Name: "force-dirty", Usage: "remove the worktree even with uncommitted changes"},
		},
		Action: func(c *cli.Context) error {
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			ws, _, err := e.targets(c.Args().Slice(), c.Bool("all"), func(w *state.Worker) bool { return !running(w) })
			if err != nil {
				return err
			}
			for _, w := range ws {
				if w.Status == state.StatusRunning {
					return fail("cannot clean running worker '%s'", w.Name)
				}
			}
			for _, w := range ws {
				if err := cleanWorker(e, w, c.Bool("rm-worktree"), c.Bool("force-dirty")); err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "cleaned %s\n", w.Name)
			}
			if c.Bool("all") && len(ws) == 0 {
				fmt.Fprintln(e.stdout, "nothing to clean")
			}
			return nil
		},
	}
}

func cleanWorker(e *env, w *state.Worker, rmWorktree, force bool) error {
	if w.Tmux != nil {
		_ = e.tm.KillPane(w.Tmux.PaneID)
		_ = e.tm.KillSessionIfEmpty(w.Tmux.Session)
	}
	if rmWorktree && w.Worktree != nil {
		removeWorktree(e, w.Worktree, force)
	}
	for _, h := range cleanHooks {
		h(e, w.Name)
	}
	for _, p := range []string{e.dir.LogPath(w.Name, "stdout"), e.dir.LogPath(w.Name, "stderr"), e.dir.ExitPath(w.Name), e.dir.EnvPath(w.Name)} {
		_ = os.Remove(p)
	}
	return e.dir.UpdateWorkers(e.warnErr, func(all *state.Workers) error {
		all.Delete(w.Name)
		return nil
	})
}

func respawnCommand() *cli.Command {
	return &cli.Command{
		Name:      "respawn",
		Usage:     "restart a worker with the same command, environment, directory and tags",
		ArgsUsage: "NAME",
		Description: `Stops the worker if it still runs, then starts it again exactly as it was spawned (same
command, --env values, working directory, tags, tmux session, worktree).

Examples:
   swarm respawn w1
   swarm respawn w1 --clean-first`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "clean-first", Usage: "remove the old worktree and create it afresh from its branch"},
			&cli.Float64Flag{Name: "grace", Usage: "seconds between SIGTERM and SIGKILL when stopping", Value: 10},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return fail("usage: swarm respawn NAME")
			}
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			w, _, err := e.loadWorker(c.Args().First())
			if err != nil {
				return err
			}
			if ralph.DirFor(e.dir, w.Name).MonitorAlive() {
				return fail("worker '%s' is driven by a ralph loop; use 'swarm ralph pause' and 'swarm ralph resume', or kill it first", w.Name)
			}
			if w.Status == state.StatusRunning {
				stopWorker(e, w, time.Duration(c.Float64("grace")*float64(time.Second)))
			}
			w2, err := respawnWorker(e, w, c.Bool("clean-first"))
			if err != nil {
				return err
			}
			if w2.Tmux != nil {
				fmt.Fprintf(e.stdout, "respawned %s (tmux: %s:%s)\n", w2.Name, w2.Tmux.Session, w2.Tmux.Window)
			} else {
				fmt.Fprintf(e.stdout, "respawned %s (pid: %d)\n", w2.Name, w2.PID)
			}
			return nil
		},
	}
}

func respawnWorker(e *env, w *state.Worker, cleanFirst bool) (*state.Worker, error) {
	var baseEnv []string
	if err := state.ReadJSON(e.dir.EnvPath(w.Name), &baseEnv); err != nil {
		baseEnv = nil
	}
	o := spawnOptions{
		Name: w.Name, Tmux: w.Tmux != nil, Tags: w.Tags, Env: w.Env, Cwd: w.Cwd, Argv: w.Cmd,
		BaseEnv: baseEnv, Metadata: w.Metadata,
	}
	if w.Tmux != nil {
		o.Session = w.Tmux.Session
	}
	if w.Worktree != nil {
		if cleanFirst {
			if !removeWorktree(e, w.Worktree, false) {
				return nil, fail("cannot remove worktree %s for --clean-first", w.Worktree.Path)
			}
			o.Worktree, o.Branch = true, w.Worktree.Branch
			o.Cwd = w.Worktree.BaseRepo
		} else if _, err := os.Stat(w.Worktree.Path); err == nil {
			o.ExistingWorktree = w.Worktree
		} else {
			o.Worktree, o.Branch = true, w.Worktree.Branch
			o.Cwd = w.Worktree.BaseRepo
		}
	}
	if w.Tmux != nil {
		_ = e.tm.KillPane(w.Tmux.PaneID)
	}
	if err := e.dir.UpdateWorkers(e.warnErr, func(all *state.Workers) error {
		all.Delete(w.Name)
		return nil
	}); err != nil {
		return nil, err
	}
	w2, err := spawnWorker(e, o)
	if err != nil {
		// Put the old record back so the worker is not lost from view.
		_ = e.dir.UpdateWorkers(e.warnErr, func(all *state.Workers) error {
			if all.Get(w.Name) == nil {
				w.Status = state.StatusStopped
				all.Put(w)
			}
			return nil
		})
		return nil, err
	}
	return w2, nil
}

// runWrapperCommand is the parent of a process-mode worker: it runs the program in the same
// process group, outlives signals meant for the group long enough to record the exit code, and
// exits with the program's code.
func runWrapperCommand() *cli.Command {
	return &cli.Command{
		Name:   "__run",
		Hidden: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "exit-file", Required: true},
			&cli.StringFlag{Name: "stdin", Usage: "file to give the program on its standard input"},
		},
		Action: func(c *cli.Context) error {
			argv := c.Args().Slice()
			if len(argv) == 0 {
				return fail("no command")
			}
			sigs := make(chan os.Signal, 8)
			// Caught (not ignored) so the program itself still gets default signal handling.
			signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
			if p := c.String("stdin"); p != "" {
				f, err := os.Open(p)
				if err != nil {
					fmt.Fprintf(os.Stderr, "swarm: error: %v\n", err)
					_ = state.WriteFileAtomic(c.String("exit-file"), []byte("127\n"), 0o600)
					return exitCode(127)
				}
				defer f.Close()
				cmd.Stdin = f
			}
			code := 0
			reason := ""
			if err := cmd.Run(); err != nil {
				var ee *exec.ExitError
				switch {
				case errors.As(err, &ee):
					if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
						code = 128 + int(ws.Signal())
					} else {
						code = ee.ExitCode()
					}
				default:
					code, reason = startFailure(argv[0], err)
					fmt.Fprintf(os.Stderr, "swarm: error: %s\n", reason)
				}
			}
			record := strconv.Itoa(code) + "\n"
			if reason != "" {
				// The second line names why the program could not start, for the loop's report.
				record += reason + "\n"
			}
			_ = state.WriteFileAtomic(c.String("exit-file"), []byte(record), 0o600)
			return exitCode(code)
		},
	}
}

// startFailure maps a failure to start a program to the shell's exit codes (127 not found, 126
// cannot execute) and a sentence naming the problem.
func startFailure(prog string, err error) (int, string) {
	switch {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, os.ErrNotExist):
		return 127, "executable not found: " + prog
	case errors.Is(err, os.ErrPermission):
		return 126, "permission denied: " + prog
	}
	return 126, fmt.Sprintf("cannot start %s: %v", prog, err)
}
