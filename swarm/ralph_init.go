package swarm

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/templates"
)

func ralphInitCommand() *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "create PROMPT.md from the starter template",
		Description: `Examples:
   swarm ralph init
   swarm ralph init --force`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "force", Usage: "overwrite an existing PROMPT.md"}},
		Action: func(c *cli.Context) error {
			return runRalphInit(outputEnv(c), ralphInitOptions{Dir: ".", Force: c.Bool("force")})
		},
	}
}

// ralphInitOptions are the arguments of `swarm ralph init`.
type ralphInitOptions struct {
	Dir   string // where PROMPT.md goes
	Force bool   // overwrite an existing one
}

func runRalphInit(e *env, o ralphInitOptions) error {
	path := filepath.Join(o.Dir, "PROMPT.md")
	_, err := os.Stat(path)
	exists := err == nil
	if exists && !o.Force {
		return fail("PROMPT.md already exists (use --force to overwrite)")
	}
	if err := state.WriteFileAtomic(path, []byte(templates.Prompt), 0o644); err != nil {
		return fail("cannot write PROMPT.md: %w", err)
	}
	if exists {
		fmt.Fprintln(e.stdout, "created PROMPT.md (overwritten)")
	} else {
		fmt.Fprintln(e.stdout, "created PROMPT.md")
	}
	return nil
}
