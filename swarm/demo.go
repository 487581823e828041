package swarm

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/demoagent"
	"github.com/swarm-dev/swarm/swarm/loop"
	"github.com/swarm-dev/swarm/swarm/worker"
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
			return runDemo(outputEnv(c), demoOptions{keep: c.Bool("keep")})
		},
	}
}

type demoOptions struct {
	keep bool // keep the scratch directory
}

// runDemo runs the demo loop in the foreground, on a state directory and tmux server of its
// own, so that it never touches the user's workers.
func runDemo(e *env, o demoOptions) error {
	dir, err := os.MkdirTemp("", "swarm-demo-")
	if err != nil {
		return fail("%w", err)
	}
	work, root := filepath.Join(dir, "work"), filepath.Join(dir, "state")
	de, err := demoEnv(e, work, root)
	defer func() {
		if de != nil {
			_ = de.Tmux().KillServer()
		}
		if o.keep {
			fmt.Fprintf(e.stdout, "kept %s (SWARM_DIR=%s, workspace %s)\n", dir, root, work)
		} else {
			os.RemoveAll(dir)
		}
	}()
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fail("%w", err)
	}
	fmt.Fprintf(e.stdout, "demo workspace: %s\n", work)
	fmt.Fprintf(e.stdout, "watch it live from another terminal: SWARM_DIR=%s swarm attach demo\n", root)
	fmt.Fprintln(e.stdout, "the agent does one task per iteration and then sits quiet; after 3 s of quiet the loop")
	fmt.Fprintln(e.stdout, "starts a fresh agent with the same prompt (the \"inactivity timeout\" lines), until it says")
	fmt.Fprintln(e.stdout, "ALL TASKS COMPLETE")
	argv := []string{exe, "demo-agent", "--banner", "demo agent (no network, no model): types nothing on its own"}
	w, err := loop.On(de.Machine).Begin(worker.SpawnOptions{Name: "demo", Cwd: work, Argv: argv}, demoState(work))
	if err != nil {
		return err
	}
	printLoopSpawned(de, w, demoIterations)
	fmt.Fprintln(e.stdout, startingLine("demo", demoIterations))
	err = runMonitor(de, monitorOptions{name: "demo", out: e.stdout, foreground: true})
	reportDemo(de, work)
	_ = de.Stop(w, 2*time.Second)
	return err
}

// demoEnv writes the demo's workspace and opens its state directory and private tmux server.
func demoEnv(e *env, work, root string) (*env, error) {
	files := map[string]string{"PROMPT.md": demoPrompt, "tasks.txt": "task 1\ntask 2\ntask 3\n"}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, fail("%w", err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(work, name), []byte(text), 0o644); err != nil {
			return nil, fail("%w", err)
		}
	}
	sdir, err := state.Open(root)
	if err != nil {
		return nil, fail("%w", err)
	}
	conf, err := worker.WriteTmuxConfig(sdir.Root)
	if err != nil {
		return nil, err
	}
	// The demo's own server and the real processes, unless the caller brought its own (the
	// tests' fakes).
	var tm tmux.Client = &tmux.Exec{SocketName: worker.SocketFor(sdir.Root), ConfigPath: conf}
	var procs worker.ProcessTable = worker.OSProcesses{}
	if e.Machine != nil {
		tm, procs = e.Tmux(), e.Procs()
	}
	return &env{Machine: worker.NewMachine(sdir, tm, procs, e.stderr), stdout: e.stdout, stderr: e.stderr}, nil
}

const demoIterations = 5

// demoState is the demo loop: quick to give up on a quiet agent, done when it says so.
func demoState(work string) *ralph.State {
	pattern := "ALL TASKS COMPLETE"
	return &ralph.State{
		PromptFile: filepath.Join(work, "PROMPT.md"), MaxIterations: demoIterations, InactivityTimeout: 3,
		DonePattern: &pattern, PromptMode: config.PromptType, ReadyTimeout: 30,
	}
}

func reportDemo(de *env, work string) {
	if data, err := os.ReadFile(filepath.Join(work, "done.txt")); err == nil {
		fmt.Fprintf(de.stdout, "tasks finished by the agent: %s", data)
	}
	if final, _ := ralph.DirFor(de.Dir(), "demo").Load(); final != nil {
		ended := loopStateWord(state.StatusStopped, final)
		fmt.Fprintf(de.stdout, "loop %s after %d iterations", ended.word, final.CurrentIteration)
		if ended.detail != "" {
			fmt.Fprintf(de.stdout, " (%s)", ended.detail)
		}
		fmt.Fprintln(de.stdout)
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
