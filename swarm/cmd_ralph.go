package swarm

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/git"
	"github.com/swarm-dev/swarm/templates"
)

func ralphFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "ralph", Usage: "run the command in a ralph loop (implies --tmux)"},
		&cli.StringFlag{Name: "prompt-file", Usage: "ralph: prompt given to the agent at every iteration (re-read each time)"},
		&cli.IntFlag{Name: "max-iterations", Usage: "ralph: stop after this many iterations"},
		&cli.IntFlag{Name: "inactivity-timeout", Usage: "ralph: seconds of unchanged screen before the agent is restarted", Value: 60},
		&cli.StringFlag{Name: "done-pattern", Usage: "ralph: regexp that stops the loop when the agent prints it"},
		&cli.StringFlag{Name: "prompt-mode", Usage: "ralph: how the prompt reaches the agent: type (into its input prompt) or stdin (headless agents)", Value: ralph.PromptType},
		&cli.BoolFlag{Name: "foreground", Usage: "ralph: run the loop in this terminal instead of a background monitor"},
		&cli.IntFlag{Name: "max-failures", Usage: "regent: consecutive failures before the loop stops as failed and escalates", Value: ralph.MaxConsecutiveFailures},
		&cli.IntFlag{Name: "retry-backoff", Usage: "regent: fixed seconds between retries (default: 1, 2, 4, ... up to 300)"},
		&cli.IntFlag{Name: "hang-timeout", Usage: "regent: seconds without real progress on screen (spinners and counters do not count) before the agent is restarted; 0 turns it off", Value: 300},
		&cli.IntFlag{Name: "iteration-timeout", Usage: "regent: longest wall time of one iteration in seconds (0: no limit)"},
		&cli.StringFlag{Name: "test-command", Usage: "regent: command (sh -c) run in the worker's directory after an iteration that made commits"},
		&cli.BoolFlag{Name: "rollback-on-test-failure", Usage: "regent: revert the iteration's commits when --test-command fails"},
		&cli.BoolFlag{Name: "push", Usage: "regent: git push after reverting"},
		&cli.StringFlag{Name: "webhook", Usage: "regent: URL that receives a JSON POST when the loop gives up"},
		&cli.BoolFlag{Name: "no-regent", Usage: "regent: run the loop unsupervised (no resurrection, hang detection or test gating)"},
	}
}

// regentConfig is the Regent's policy for a loop started in dir (see ralph.ResolveRegent):
// only the flags given on the command line override swarm.toml.
func regentConfig(c *cli.Context, dir string) (*ralph.RegentConfig, error) {
	var f ralph.RegentFlags
	setFlag(c, "max-failures", c.Int, &f.MaxFailures)
	setFlag(c, "retry-backoff", c.Int, &f.RetryBackoffSeconds)
	setFlag(c, "hang-timeout", c.Int, &f.HangTimeoutSeconds)
	setFlag(c, "iteration-timeout", c.Int, &f.IterationTimeout)
	setFlag(c, "test-command", c.String, &f.TestCommand)
	setFlag(c, "rollback-on-test-failure", c.Bool, &f.RollbackOnTestFailure)
	setFlag(c, "push", c.Bool, &f.Push)
	setFlag(c, "webhook", c.String, &f.Webhook)
	f.NoRegent = c.Bool("no-regent")
	rc, err := ralph.ResolveRegent(dir, f)
	if err != nil {
		return nil, fail("%v", err)
	}
	return &rc, nil
}

// setFlag points dst at the flag's value when the flag was given, and leaves it nil otherwise.
func setFlag[T any](c *cli.Context, name string, get func(string) T, dst **T) {
	if c.IsSet(name) {
		v := get(name)
		*dst = &v
	}
}

// loopOptions are the validated ralph flags.
type loopOptions struct {
	promptFile   string // absolute
	promptArg    string // as the user wrote it
	max          int
	inactivity   int
	donePattern  string
	promptMode   string
	readyPattern string
	readyTimeout int
	foreground   bool
}

// validateRalph checks the ralph flags in the order and with the messages of the loop spec.
func validateRalph(e *env, c *cli.Context) (*loopOptions, error) {
	if !c.IsSet("prompt-file") || c.String("prompt-file") == "" {
		return nil, fail("--ralph requires --prompt-file")
	}
	if !c.IsSet("max-iterations") {
		return nil, fail("--ralph requires --max-iterations")
	}
	o := &loopOptions{
		promptArg:    c.String("prompt-file"),
		max:          c.Int("max-iterations"),
		inactivity:   c.Int("inactivity-timeout"),
		donePattern:  c.String("done-pattern"),
		promptMode:   c.String("prompt-mode"),
		readyPattern: c.String("ready-pattern"),
		readyTimeout: c.Int("ready-timeout"),
		foreground:   c.Bool("foreground"),
	}
	abs, err := filepath.Abs(o.promptArg)
	if err != nil {
		return nil, fail("prompt file not found: %s", o.promptArg)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fail("prompt file not found: %s", o.promptArg)
		}
		return nil, fail("cannot read prompt file: %s", o.promptArg)
	}
	if fi.IsDir() {
		return nil, fail("cannot read prompt file: %s", o.promptArg)
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, fail("cannot read prompt file: %s", o.promptArg)
	}
	f.Close()
	o.promptFile = abs
	if o.max < 1 {
		return nil, fail("--max-iterations must be at least 1")
	}
	if o.max > 50 {
		e.warnf("high iteration count (>50) may consume significant resources")
	}
	if o.inactivity < 1 {
		return nil, fail("--inactivity-timeout must be at least 1 second")
	}
	if o.donePattern != "" {
		if _, err := regexp.Compile(o.donePattern); err != nil {
			return nil, fail("invalid --done-pattern: %v", err)
		}
	}
	switch o.promptMode {
	case ralph.PromptType, ralph.PromptStdin:
	case "tui":
		o.promptMode = ralph.PromptType
	default:
		return nil, fail("invalid --prompt-mode '%s' (expected type or stdin)", o.promptMode)
	}
	return o, nil
}

// runRalphSpawn starts a looping worker: the first iteration's agent in a tmux window, the
// loop state, and the monitor that drives the rest.
func runRalphSpawn(e *env, c *cli.Context) error {
	lo, err := validateRalph(e, c)
	if err != nil {
		return err
	}
	o, _, err := spawnOptionsFromFlags(c)
	if err != nil {
		return err
	}
	name := o.Name
	if ws, err := e.dir.LoadWorkers(e.warnErr); err == nil && ws.Get(name) != nil {
		return fail("worker '%s' already exists", name)
	}
	ld := ralph.DirFor(e.dir, name)
	if ld.MonitorAlive() {
		return fail("a ralph loop for '%s' is still running", name)
	}
	_ = os.RemoveAll(ld.Path)
	if err := os.MkdirAll(ld.Path, 0o700); err != nil {
		return fail("cannot create %s: %v", ld.Path, err)
	}
	prompt, err := ralph.ReadPrompt(lo.promptFile)
	if err != nil {
		return fail("%v", err)
	}
	if err := os.WriteFile(ld.PromptCopy(), []byte(prompt), 0o600); err != nil {
		return fail("cannot write %s: %v", ld.PromptCopy(), err)
	}
	spawnDir := o.Cwd
	if spawnDir == "" {
		spawnDir, _ = os.Getwd()
	}
	spawnDir, _ = filepath.Abs(spawnDir)
	rc, err := regentConfig(c, spawnDir)
	if err != nil {
		os.RemoveAll(ld.Path)
		return err
	}
	o.Tmux = true
	o.StartArgv = ralph.AgentArgv(o.Argv, lo.promptMode, runWrapper(), e.dir.ExitPath(name), ld.PromptCopy())
	o.ExtraEnv = []string{"SWARM_ITERATION=1", "SWARM_DONE_FILE=" + ld.DoneFile()}
	o.Metadata = map[string]any{"ralph": true, "ralph_iteration": 1}
	w, err := spawnWorker(e, o)
	if err != nil {
		os.RemoveAll(ld.Path)
		return err
	}
	now := time.Now()
	st := &ralph.State{
		WorkerName:           name,
		PromptFile:           lo.promptFile,
		MaxIterations:        lo.max,
		CurrentIteration:     1,
		Status:               ralph.StatusRunning,
		Started:              now.Format(ralph.TimeFormat),
		LastIterationStarted: now.Format(ralph.TimeFormat),
		LastScreenChange:     now.Format(ralph.TimeFormat),
		InactivityTimeout:    lo.inactivity,
		Phase:                ralph.PhaseStarting,
		PromptMode:           lo.promptMode,
		ReadyPattern:         lo.readyPattern,
		ReadyTimeout:         c.Int("ready-timeout"),
		Regent:               rc,
	}
	if lo.donePattern != "" {
		p := lo.donePattern
		st.DonePattern = &p
	}
	if rc.Enabled && rc.TestCommand != "" {
		st.IterationStartCommit = git.Head(w.Cwd)
	}
	undo := func() {
		stopWorker(e, w, 2*time.Second)
		_ = e.dir.UpdateWorkers(e.warnErr, func(ws *state.Workers) error { ws.Delete(name); return nil })
		os.RemoveAll(ld.Path)
	}
	if err := ld.Create(st); err != nil {
		undo()
		return fail("cannot write loop state: %v", err)
	}
	_ = ld.LogEvent(now, "START", fmt.Sprintf("iteration 1/%d", lo.max))
	fmt.Fprintf(e.stdout, "spawned %s (tmux: %s:%s) [ralph mode: iteration 1/%d]\n", w.Name, w.Tmux.Session, w.Tmux.Window, lo.max)
	if lo.foreground {
		fmt.Fprintf(e.stdout, "[ralph] %s: starting iteration 1/%d\n", name, lo.max)
		return runMonitor(e, name, e.stdout, true)
	}
	appendMonitorLog(ld, fmt.Sprintf("[ralph] %s: starting iteration 1/%d", name, lo.max))
	ld.UpdateRegent(func(rs *ralph.RegentState) { rs.Iteration = 1 })
	if err := startMonitor(e, name); err != nil {
		undo()
		return fail("cannot start the loop monitor: %v", err)
	}
	return nil
}

// stopLoopOnKill: killing a ralph worker stops its loop for good.
func stopLoopOnKill(e *env, name string) {
	ld := ralph.DirFor(e.dir, name)
	if !ld.Exists() {
		return
	}
	_, err := ld.Update(func(s *ralph.State) error {
		if s.Status == ralph.StatusRunning || s.Status == ralph.StatusPaused {
			s.Status = ralph.StatusStopped
			s.ExitReason = "killed"
			s.Ended = time.Now().Format(ralph.TimeFormat)
		}
		return nil
	})
	if err == nil {
		_ = ld.LogEvent(time.Now(), "KILL", "loop stopped by swarm kill")
	}
}

// afterKill waits briefly for the loop's monitor to notice and leave.
func waitMonitorGone(e *env, name string, d time.Duration) {
	ld := ralph.DirFor(e.dir, name)
	deadline := time.Now().Add(d)
	for ld.MonitorAlive() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}

func removeLoopOnClean(e *env, name string) {
	ld := ralph.DirFor(e.dir, name)
	if ld.MonitorAlive() {
		return
	}
	_ = os.RemoveAll(ld.Path)
}

func ralphCommand() *cli.Command {
	return &cli.Command{
		Name:  "ralph",
		Usage: "ralph loops: restart an agent with a fresh context and the same prompt until done",
		Description: `A ralph loop starts the agent, gives it PROMPT.md, watches it, and when it exits, goes quiet
or prints the done pattern, decides: restart, back off, or stop.

Examples:
   swarm ralph init
   swarm spawn --name agent --ralph --prompt-file PROMPT.md --max-iterations 20 -- claude
   swarm ralph status agent
   swarm ralph pause agent
   swarm ralph resume agent
   swarm ralph logs agent --follow`,
		Subcommands: []*cli.Command{
			{
				Name:      "spawn",
				Usage:     "start a looping worker (same as swarm spawn --ralph)",
				ArgsUsage: "-- COMMAND [ARGS...]",
				Description: `Starts COMMAND in a tmux window and a monitor that restarts it, with PROMPT, each
iteration. --prompt-file and --max-iterations are required.

Examples:
   swarm ralph spawn --name agent --prompt-file PROMPT.md --max-iterations 20 -- claude
   swarm ralph spawn --name fix --worktree --prompt-file PROMPT.md --max-iterations 10 \
       --done-pattern 'ALL TASKS COMPLETE' --test-command 'go test ./...' --rollback-on-test-failure -- claude
   swarm ralph spawn --name batch --prompt-mode stdin --prompt-file PROMPT.md --max-iterations 5 -- claude -p`,
				Flags: append(spawnFlags(), ralphFlags()...),
				Action: func(c *cli.Context) error {
					e, err := openEnv(c)
					if err != nil {
						return err
					}
					return runRalphSpawn(e, c)
				},
			},
			ralphStatusCommand(),
			ralphPauseCommand(),
			ralphResumeCommand(),
			ralphLogsCommand(),
			ralphLsCommand(),
			ralphCleanCommand(),
			ralphInitCommand(),
			ralphTemplateCommand(),
			{
				Name:   "__keeper",
				Hidden: true,
				Action: func(c *cli.Context) error {
					e, err := openEnv(c)
					if err != nil {
						return err
					}
					return runKeeper(e, c.Args().First())
				},
			},
			{
				Name:   "__monitor",
				Hidden: true,
				Action: func(c *cli.Context) error {
					e, err := openEnv(c)
					if err != nil {
						return err
					}
					return runMonitor(e, c.Args().First(), e.stdout, false)
				},
			},
		},
	}
}

// loadLoop finds a worker's loop: exit 2 when there is no such worker, 1 when it has no loop.
func loadLoop(e *env, name string) (*state.Worker, ralph.Dir, *ralph.State, error) {
	w, _, err := e.loadWorker(name)
	if err != nil {
		return nil, ralph.Dir{}, nil, err
	}
	ld := ralph.DirFor(e.dir, name)
	st, err := ld.Load()
	if err != nil {
		if errors.Is(err, ralph.ErrNoLoop) {
			return nil, ld, nil, fail("worker '%s' is not a ralph worker", name)
		}
		return nil, ld, nil, fail("%v", err)
	}
	return w, ld, st, nil
}

func oneName(c *cli.Context, usage string) (string, error) {
	if c.Args().Len() != 1 {
		return "", fail("usage: %s", usage)
	}
	return c.Args().First(), nil
}

func ralphStatusCommand() *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show a loop's progress",
		ArgsUsage: "NAME",
		Description: `Examples:
   swarm ralph status agent
   swarm ralph status agent --format json`,
		Flags: []cli.Flag{&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Usage: "text or json"}},
		Action: func(c *cli.Context) error {
			name, err := oneName(c, "swarm ralph status NAME")
			if err != nil {
				return err
			}
			format, err := formatFlag(c, "text", "json")
			if err != nil {
				return err
			}
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			w, ld, st, err := loadLoop(e, name)
			if err != nil {
				return err
			}
			alive := ld.MonitorAlive()
			if format == "json" {
				return printJSON(e, loopJSON(ld, st, w, alive))
			}
			printLoopStatus(e.stdout, ld, st, w, alive)
			return nil
		},
	}
}

type loopView struct {
	*ralph.State
	WorkerStatus string             `json:"worker_status"`
	MonitorAlive bool               `json:"monitor_alive"`
	RegentState  *ralph.RegentState `json:"regent_state"`
}

func loopJSON(ld ralph.Dir, st *ralph.State, w *state.Worker, alive bool) loopView {
	ws := "gone"
	if w != nil {
		ws = w.Status
	}
	rs := ld.LoadRegent()
	return loopView{State: st, WorkerStatus: ws, MonitorAlive: alive, RegentState: &rs}
}

func printLoopStatus(out io.Writer, ld ralph.Dir, st *ralph.State, w *state.Worker, alive bool) {
	fmt.Fprintf(out, "Ralph Loop: %s\n", st.WorkerName)
	fmt.Fprintf(out, "Status: %s\n", st.Status)
	fmt.Fprintf(out, "Iteration: %d/%d\n", st.CurrentIteration, st.MaxIterations)
	fmt.Fprintf(out, "Started: %s\n", ralph.FormatTime(st.Started))
	fmt.Fprintf(out, "Current iteration started: %s\n", ralph.FormatTime(st.LastIterationStarted))
	fmt.Fprintf(out, "Consecutive failures: %d\n", st.ConsecutiveFailures)
	fmt.Fprintf(out, "Total failures: %d\n", st.TotalFailures)
	fmt.Fprintf(out, "Inactivity timeout: %ds\n", st.InactivityTimeout)
	if st.DonePattern != nil {
		fmt.Fprintf(out, "Done pattern: %s\n", *st.DonePattern)
	} else {
		fmt.Fprintf(out, "Done pattern: (none)\n")
	}
	if st.ExitReason != "" {
		fmt.Fprintf(out, "Exit reason: %s\n", st.ExitReason)
	}
	if st.LastExitCode != nil {
		fmt.Fprintf(out, "Last exit code: %d\n", *st.LastExitCode)
	}
	if st.BlockedBy != "" {
		fmt.Fprintf(out, "Blocked by: %s\n", screen.DialogDescription(st.BlockedBy))
	}
	if t := ralph.ParseTime(st.LastScreenChange); !t.IsZero() {
		fmt.Fprintf(out, "Last screen change: %s (%s ago)\n", t.Format("2006-01-02 15:04:05"), formatDuration(time.Since(t)))
	}
	ws := "gone"
	if w != nil {
		ws = w.Status
	}
	fmt.Fprintf(out, "Worker: %s\n", ws)
	rc := ralph.DefaultRegent()
	if st.Regent != nil {
		rc = *st.Regent
	}
	if rc.Enabled {
		parts := []string{fmt.Sprintf("max failures %d", rc.MaxFailures)}
		if rc.HangTimeoutSeconds > 0 {
			parts = append(parts, fmt.Sprintf("hang timeout %ds", rc.HangTimeoutSeconds))
		}
		if rc.IterationTimeout > 0 {
			parts = append(parts, fmt.Sprintf("iteration timeout %ds", rc.IterationTimeout))
		}
		if rc.TestCommand != "" {
			gate := "tests: " + rc.TestCommand
			if rc.RollbackOnTestFailure {
				gate += " (rollback on failure)"
			}
			parts = append(parts, gate)
		}
		if rc.Webhook != "" {
			parts = append(parts, "webhook set")
		}
		fmt.Fprintf(out, "Regent: on (%s)\n", strings.Join(parts, ", "))
		rs := ld.LoadRegent()
		fmt.Fprintf(out, "Resurrections: %d\n", rs.Resurrections)
		fmt.Fprintf(out, "Rollbacks: %d\n", rs.Rollbacks)
		if rs.LastOutputAt != "" {
			fmt.Fprintf(out, "Last output: %s\n", rs.LastOutputAt)
		}
		if rs.LastCommit != "" {
			fmt.Fprintf(out, "Last commit: %s\n", rs.LastCommit)
		}
	} else {
		fmt.Fprintf(out, "Regent: off\n")
	}
	if alive {
		fmt.Fprintf(out, "Monitor: alive (pid %d)\n", st.MonitorPID)
	} else {
		fmt.Fprintf(out, "Monitor: not running\n")
	}
}

func ralphPauseCommand() *cli.Command {
	return &cli.Command{
		Name:      "pause",
		Usage:     "let the current agent finish, then start no new iteration",
		ArgsUsage: "NAME",
		Description: `Examples:
   swarm ralph pause agent`,
		Action: func(c *cli.Context) error {
			name, err := oneName(c, "swarm ralph pause NAME")
			if err != nil {
				return err
			}
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			_, ld, _, err := loadLoop(e, name)
			if err != nil {
				return err
			}
			var was ralph.Status
			_, err = ld.Update(func(s *ralph.State) error {
				was = s.Status
				if s.Status == ralph.StatusRunning {
					s.Status = ralph.StatusPaused
					s.ExitReason = "paused"
				}
				return nil
			})
			if err != nil {
				return fail("%v", err)
			}
			switch was {
			case ralph.StatusPaused:
				e.warnf("worker '%s' is already paused", name)
				return nil
			case ralph.StatusRunning:
				_ = ld.LogEvent(time.Now(), "PAUSE", "paused by user")
				fmt.Fprintf(e.stdout, "paused ralph loop for %s\n", name)
				return nil
			default:
				e.warnf("ralph loop for '%s' is not running (%s)", name, was)
				return nil
			}
		},
	}
}

func ralphResumeCommand() *cli.Command {
	return &cli.Command{
		Name:      "resume",
		Usage:     "continue a paused loop (restarting its monitor if it died)",
		ArgsUsage: "NAME",
		Description: `Continues from the current iteration count. Also brings back a loop whose monitor died
(status running, no monitor).

Examples:
   swarm ralph resume agent`,
		Action: func(c *cli.Context) error {
			name, err := oneName(c, "swarm ralph resume NAME")
			if err != nil {
				return err
			}
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			_, ld, _, err := loadLoop(e, name)
			if err != nil {
				return err
			}
			var was ralph.Status
			needMonitor := false
			err = ld.WithLock(func() error {
				var s ralph.State
				if err := state.ReadJSON(filepath.Join(ld.Path, "state.json"), &s); err != nil {
					return err
				}
				was = s.Status
				switch s.Status {
				case ralph.StatusPaused:
					s.Status = ralph.StatusRunning
					s.ExitReason = ""
					if err := state.WriteJSON(filepath.Join(ld.Path, "state.json"), &s); err != nil {
						return err
					}
					needMonitor = !ld.MonitorAlive()
				case ralph.StatusRunning:
					needMonitor = !ld.MonitorAlive()
				}
				return nil
			})
			if err != nil {
				return fail("%v", err)
			}
			if was != ralph.StatusPaused && !(was == ralph.StatusRunning && needMonitor) {
				e.warnf("worker '%s' is not paused", name)
				return nil
			}
			if was == ralph.StatusPaused {
				_ = ld.LogEvent(time.Now(), "RESUME", "resumed by user")
			} else {
				_ = ld.LogEvent(time.Now(), "RESUME", "monitor restarted")
			}
			if needMonitor {
				if err := startMonitor(e, name); err != nil {
					return fail("cannot start the loop monitor: %v", err)
				}
			}
			fmt.Fprintf(e.stdout, "resumed ralph loop for %s\n", name)
			return nil
		},
	}
}

func ralphLogsCommand() *cli.Command {
	return &cli.Command{
		Name:      "logs",
		Usage:     "show a loop's iteration log (or its monitor log)",
		ArgsUsage: "NAME",
		Description: `Examples:
   swarm ralph logs agent
   swarm ralph logs agent --follow
   swarm ralph logs agent --monitor --lines 50`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "keep printing new lines until the loop ends"},
			&cli.BoolFlag{Name: "monitor", Usage: "the monitor's log ([ralph] messages) instead of iteration events"},
			&cli.IntFlag{Name: "lines", Aliases: []string{"n"}, Usage: "only the last K lines (0: all)"},
		},
		Action: func(c *cli.Context) error {
			name, err := oneName(c, "swarm ralph logs NAME")
			if err != nil {
				return err
			}
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			if err := validateName(name); err != nil {
				return err
			}
			ld := ralph.DirFor(e.dir, name)
			if !ld.Exists() {
				if _, _, err := e.loadWorker(name); err != nil {
					return err
				}
				return fail("worker '%s' is not a ralph worker", name)
			}
			path := ld.IterationsLog()
			if c.Bool("monitor") {
				path = ld.MonitorLog()
			}
			return tailFile(e, path, c.Int("lines"), c.Bool("follow"), func() bool {
				st, err := ld.Load()
				return err == nil && (st.Status == ralph.StatusRunning || ld.MonitorAlive())
			})
		},
	}
}

// tailFile prints a log file (the last n lines when n > 0) and, with follow, what is appended
// while more() says the writer is still at it. Only whole lines are printed.
func tailFile(e *env, path string, n int, follow bool, more func() bool) error {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if !follow {
				return nil
			}
		} else {
			return fail("%v", err)
		}
	}
	var pending string
	var offset int64
	read := func() {
		if f == nil {
			if f, err = os.Open(path); err != nil {
				f = nil
				return
			}
		}
		data, _ := io.ReadAll(f)
		offset += int64(len(data))
		pending += string(data)
	}
	read()
	lines := strings.SplitAfter(pending, "\n")
	pending = ""
	if last := lines[len(lines)-1]; !strings.HasSuffix(last, "\n") {
		pending = last
		lines = lines[:len(lines)-1]
	}
	if n > 0 && len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	fmt.Fprint(e.stdout, strings.Join(lines, ""))
	for follow {
		keep := more()
		time.Sleep(200 * time.Millisecond)
		read()
		if i := strings.LastIndexByte(pending, '\n'); i >= 0 {
			fmt.Fprint(e.stdout, pending[:i+1])
			pending = pending[i+1:]
		}
		if !keep {
			break
		}
	}
	if f != nil {
		f.Close()
	}
	return nil
}

func ralphLsCommand() *cli.Command {
	return &cli.Command{
		Name:  "ls",
		Usage: "list ralph loops",
		Description: `Examples:
   swarm ralph ls
   swarm ralph ls --format json`,
		Flags: []cli.Flag{&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "table", Usage: "table, json or names"}},
		Action: func(c *cli.Context) error {
			format, err := formatFlag(c, "table", "json", "names")
			if err != nil {
				return err
			}
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			list, _, err := e.loadAll()
			if err != nil {
				return err
			}
			byName := map[string]*state.Worker{}
			for _, w := range list {
				byName[w.Name] = w
			}
			entries, _ := os.ReadDir(filepath.Join(e.dir.Root, "ralph"))
			var views []loopView
			for _, ent := range entries {
				if !ent.IsDir() || validateName(ent.Name()) != nil {
					continue
				}
				ld := ralph.DirFor(e.dir, ent.Name())
				st, err := ld.Load()
				if err != nil {
					continue
				}
				views = append(views, loopJSON(ld, st, byName[ent.Name()], ld.MonitorAlive()))
			}
			switch format {
			case "json":
				if views == nil {
					views = []loopView{}
				}
				return printJSON(e, views)
			case "names":
				for _, v := range views {
					fmt.Fprintln(e.stdout, v.WorkerName)
				}
			default:
				if len(views) == 0 {
					fmt.Fprintln(e.stdout, "no ralph loops")
					return nil
				}
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tSTATUS\tITERATION\tWORKER\tMONITOR\tEXIT REASON")
				for _, v := range views {
					mon := "dead"
					if v.MonitorAlive {
						mon = "alive"
					}
					reason := v.ExitReason
					if reason == "" {
						reason = "-"
					}
					fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s\t%s\n", v.WorkerName, v.Status, v.CurrentIteration, v.MaxIterations, v.WorkerStatus, mon, reason)
				}
				tw.Flush()
			}
			return nil
		},
	}
}

func ralphCleanCommand() *cli.Command {
	return &cli.Command{
		Name:      "clean",
		Usage:     "remove the state of loops that are no longer running",
		ArgsUsage: "NAME...",
		Description: `Removes $SWARM_DIR/ralph/NAME (state, logs, saved screens). A loop whose monitor is alive
is refused; pause or kill it first.

Examples:
   swarm ralph clean agent
   swarm ralph clean --all`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every loop without a live monitor"}},
		Action: func(c *cli.Context) error {
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			names := c.Args().Slice()
			if c.Bool("all") {
				if len(names) > 0 {
					return fail("give loop names or --all, not both")
				}
				entries, _ := os.ReadDir(filepath.Join(e.dir.Root, "ralph"))
				for _, ent := range entries {
					if ent.IsDir() && validateName(ent.Name()) == nil && !ralph.DirFor(e.dir, ent.Name()).MonitorAlive() {
						names = append(names, ent.Name())
					}
				}
				if len(names) == 0 {
					fmt.Fprintln(e.stdout, "nothing to clean")
				}
			} else if len(names) == 0 {
				return fail("no loop name given (or use --all)")
			}
			for _, n := range names {
				if err := validateName(n); err != nil {
					return err
				}
				ld := ralph.DirFor(e.dir, n)
				if !ld.Exists() {
					return fail("no ralph loop for '%s'", n)
				}
				if ld.MonitorAlive() {
					return fail("cannot clean running ralph loop '%s' (pause or kill it first)", n)
				}
			}
			for _, n := range names {
				if err := os.RemoveAll(ralph.DirFor(e.dir, n).Path); err != nil {
					return fail("%v", err)
				}
				fmt.Fprintf(e.stdout, "cleaned ralph state for %s\n", n)
			}
			return nil
		},
	}
}

func ralphInitCommand() *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "create PROMPT.md from the starter template",
		Description: `Examples:
   swarm ralph init
   swarm ralph init --force`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "force", Usage: "overwrite an existing PROMPT.md"}},
		Action: func(c *cli.Context) error {
			const path = "PROMPT.md"
			_, err := os.Stat(path)
			exists := err == nil
			if exists && !c.Bool("force") {
				return fail("PROMPT.md already exists (use --force to overwrite)")
			}
			if err := state.WriteFileAtomic(path, []byte(templates.Prompt), 0o644); err != nil {
				return fail("cannot write PROMPT.md: %v", err)
			}
			if exists {
				fmt.Fprintln(c.App.Writer, "created PROMPT.md (overwritten)")
			} else {
				fmt.Fprintln(c.App.Writer, "created PROMPT.md")
			}
			return nil
		},
	}
}

func ralphTemplateCommand() *cli.Command {
	return &cli.Command{
		Name:  "template",
		Usage: "print the starter PROMPT.md template",
		Description: `Examples:
   swarm ralph template > BUILD_PROMPT.md`,
		Action: func(c *cli.Context) error {
			fmt.Fprint(c.App.Writer, templates.Prompt)
			return nil
		},
	}
}
