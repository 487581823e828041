package swarm

import (
	"errors"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// The `swarm ralph` group, and what its commands share: finding a worker's loop and telling
// why its state cannot be read.

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
			ralphSpawnCommand(),
			ralphRunCommand(),
			ralphStopCommand(),
			ralphStatusCommand(),
			ralphPauseCommand(),
			ralphResumeCommand(),
			ralphLogsCommand(),
			ralphSummaryCommand(),
			ralphLsCommand(),
			ralphCleanCommand(),
			ralphInitCommand(),
			ralphTemplateCommand(),
			monitorCommand(),
		},
	}
}

// outputEnv is the env of a command that needs no state directory or tmux server (init,
// template): opening them would create ~/.swarm for nothing.
func outputEnv(c *cli.Context) *env {
	return &env{stdout: c.App.Writer, stderr: c.App.ErrWriter}
}

// loadLoop finds a worker's loop: exit 2 when there is no such worker, 1 when it has no loop
// or its state cannot be read.
func loadLoop(e *env, name string) (*state.Worker, ralph.Dir, *ralph.State, error) {
	w, _, err := e.Load(name)
	if err != nil {
		return nil, ralph.Dir{}, nil, err
	}
	ld := ralph.DirFor(e.Dir(), name)
	st, err := ld.Load()
	if err != nil {
		return nil, ld, nil, loopStateError(ld, name, err)
	}
	return w, ld, st, nil
}

// loopStateError explains why a loop's state cannot be read. Whoever reads a corrupt state
// file first moves it aside, so later readers find no file but the copy: both are the same
// damage and are told the same way, rather than as "not a ralph worker".
func loopStateError(ld ralph.Dir, name string, err error) error {
	var ce *state.CorruptError
	switch {
	case errors.As(err, &ce):
		return corruptLoop(ld, ce.MovedTo)
	case errors.Is(err, ralph.ErrNoLoop):
		if kept := keptCopy(ld); kept != "" {
			return corruptLoop(ld, kept)
		}
		return fail("worker '%s' is not a ralph worker", name)
	}
	return fail("%w", err)
}

func corruptLoop(ld ralph.Dir, kept string) error {
	return fail("loop state %s is corrupt (kept as %s)", loopStatePath(ld), filepath.Base(kept))
}

func loopStatePath(ld ralph.Dir) string { return filepath.Join(ld.Path, "state.json") }

// keptCopy is the newest copy of a corrupt loop state that was set aside, or "". The copies'
// names end in a UTC time that sorts as text, and Glob sorts.
func keptCopy(ld ralph.Dir) string {
	moved, _ := filepath.Glob(loopStatePath(ld) + ".corrupt-*")
	if len(moved) == 0 {
		return ""
	}
	return moved[len(moved)-1]
}

// hasLoop reports whether a loop was ever set up for the worker, damaged or not.
func hasLoop(ld ralph.Dir) bool { return ld.Exists() || keptCopy(ld) != "" }
