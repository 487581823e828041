package swarm

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/demoagent"
	"github.com/swarm-dev/swarm/tmux"
)

// demoPrompt drives the built-in demo agent: each iteration does one "task", and the third
// one reports that everything is complete. The done marker is in the prompt on purpose: the
// loop must not mistake the prompt's own echo for the agent saying it.
const demoPrompt = `Pick the next task from tasks.txt and do it.
When every task is done, print ALL TASKS COMPLETE.

@work 1
@sh n=$(cat done.txt 2>/dev/null || echo 0); n=$((n+1)); echo $n > done.txt; echo "finished task $n of 3"; if [ $n -ge 3 ]; then echo "ALL TASKS COMPLETE"; fi
@work 1
`

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "run a short ralph loop with a built-in demo agent (no agent CLI needed)",
		Description: `Runs a three-task ralph loop in a scratch directory with swarm's built-in demo agent: each
iteration starts the agent fresh, types PROMPT.md into it, watches it work, and restarts it
when it goes quiet, until it prints the done marker. Nothing outside the scratch directory
and its private tmux server is touched; both are removed at the end (unless --keep).

Examples:
   swarm demo
   swarm demo --keep      # then look around with the printed SWARM_DIR`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "keep", Usage: "keep the scratch directory (state, logs, workspace)"},
		},
		Action: func(c *cli.Context) error {
			dir, err := os.MkdirTemp("", "swarm-demo-")
			if err != nil {
				return fail("%v", err)
			}
			work := filepath.Join(dir, "work")
			root := filepath.Join(dir, "state")
			if err := os.MkdirAll(work, 0o755); err != nil {
				return fail("%v", err)
			}
			if err := os.WriteFile(filepath.Join(work, "PROMPT.md"), []byte(demoPrompt), 0o644); err != nil {
				return fail("%v", err)
			}
			if err := os.WriteFile(filepath.Join(work, "tasks.txt"), []byte("task 1\ntask 2\ntask 3\n"), 0o644); err != nil {
				return fail("%v", err)
			}
			sdir, err := state.Open(root)
			if err != nil {
				return fail("%v", err)
			}
			conf := filepath.Join(sdir.Root, "tmux.conf")
			if err := state.WriteFileAtomic(conf, []byte(tmux.Config), 0o600); err != nil {
				return fail("%v", err)
			}
			e := &env{dir: sdir, tm: &tmux.Exec{SocketName: SocketFor(sdir.Root), ConfigPath: conf}, procs: osProcesses{}, stdout: c.App.Writer, stderr: c.App.ErrWriter}
			defer func() {
				_ = e.tm.KillServer()
				if c.Bool("keep") {
					fmt.Fprintf(e.stdout, "kept %s (SWARM_DIR=%s, workspace %s)\n", dir, root, work)
				} else {
					os.RemoveAll(dir)
				}
			}()
			exe, err := os.Executable()
			if err != nil {
				return fail("%v", err)
			}
			fmt.Fprintf(e.stdout, "demo workspace: %s\n", work)
			fmt.Fprintf(e.stdout, "watch it live from another terminal: SWARM_DIR=%s swarm attach demo\n", root)
			argv := []string{exe, "demo-agent", "--banner", "demo agent (no network, no model): types nothing on its own"}
			ld := ralph.DirFor(sdir, "demo")
			if err := os.MkdirAll(ld.Path, 0o700); err != nil {
				return fail("%v", err)
			}
			w, err := spawnWorker(e, spawnOptions{Name: "demo", Tmux: true, Cwd: work, Argv: argv,
				StartArgv: ralph.AgentArgv(argv, ralph.PromptType, runWrapper(), sdir.ExitPath("demo"), ld.PromptCopy()),
				ExtraEnv:  []string{"SWARM_ITERATION=1"}, Metadata: map[string]any{"ralph": true, "ralph_iteration": 1}})
			if err != nil {
				return err
			}
			now := time.Now()
			pattern := "ALL TASKS COMPLETE"
			st := &ralph.State{
				WorkerName: "demo", PromptFile: filepath.Join(work, "PROMPT.md"), MaxIterations: 5,
				CurrentIteration: 1, Status: ralph.StatusRunning, Started: now.Format(ralph.TimeFormat),
				LastIterationStarted: now.Format(ralph.TimeFormat), InactivityTimeout: 3,
				DonePattern: &pattern, Phase: ralph.PhaseStarting, PromptMode: ralph.PromptType, ReadyTimeout: 30,
			}
			if err := ld.Create(st); err != nil {
				return fail("%v", err)
			}
			fmt.Fprintf(e.stdout, "spawned demo (tmux: %s:%s) [ralph mode: iteration 1/%d]\n", w.Tmux.Session, w.Tmux.Window, st.MaxIterations)
			fmt.Fprintf(e.stdout, "[ralph] demo: starting iteration 1/%d\n", st.MaxIterations)
			err = runMonitor(e, "demo", e.stdout, true)
			if data, rerr := os.ReadFile(filepath.Join(work, "done.txt")); rerr == nil {
				fmt.Fprintf(e.stdout, "tasks finished by the agent: %s", data)
			}
			final, _ := ld.Load()
			if final != nil {
				fmt.Fprintf(e.stdout, "loop %s after %s iterations (%s)\n", final.Status, strconv.Itoa(final.CurrentIteration), final.ExitReason)
			}
			stopWorker(e, w, 2*time.Second)
			return err
		},
	}
}

func demoAgentCommand() *cli.Command {
	return &cli.Command{
		Name:            "demo-agent",
		Usage:           "a stand-in agent with a Claude-like prompt, for demos and tests",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			return exitCode(demoagent.Main(c.Args().Slice()))
		},
	}
}
