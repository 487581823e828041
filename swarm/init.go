package swarm

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/templates"
)

// initOptions are the arguments of `swarm init`.
type initOptions struct {
	Dir         string // the project directory
	File        string // AGENTS.md or CLAUDE.md; "" chooses
	DryRun      bool
	Force       bool // replace an existing section
	WithSandbox bool
}

func (o initOptions) check() error {
	switch o.File {
	case "", "AGENTS.md", "CLAUDE.md":
		return nil
	}
	return fail("invalid --file '%s' (expected AGENTS.md or CLAUDE.md)", o.File)
}

func initCommand() *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "teach this project's agents to use swarm (a section in AGENTS.md or CLAUDE.md)",
		Description: `Adds a "Process Management (swarm)" section to AGENTS.md, or to CLAUDE.md when only that
exists, or creates AGENTS.md. Running it again changes nothing; --force replaces the section
with the current one, leaving the rest of the file as it is.

--with-sandbox also writes what running loops in Docker takes: sandbox.sh (runs the agent in
a container that sees only this directory), Dockerfile.sandbox, setup-sandbox-network.sh and
teardown-sandbox-network.sh (a network that reaches only the model APIs), ORCHESTRATOR.md
and PROMPT.md. Files that exist are never overwritten.

Examples:
   swarm init
   swarm init --dry-run
   swarm init --file CLAUDE.md --force
   swarm init --with-sandbox`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "say which file and what would change, and write nothing"},
			&cli.StringFlag{Name: "file", Usage: "AGENTS.md or CLAUDE.md (default: the one that exists, else AGENTS.md)"},
			&cli.BoolFlag{Name: "force", Usage: "replace the swarm section when it is already there"},
			&cli.BoolFlag{Name: "with-sandbox", Usage: "also write the files for running loops in a Docker sandbox"},
		},
		Action: func(c *cli.Context) error {
			o := initOptions{Dir: ".", File: c.String("file"), DryRun: c.Bool("dry-run"), Force: c.Bool("force"),
				WithSandbox: c.Bool("with-sandbox")}
			if err := o.check(); err != nil {
				return err
			}
			return runInit(outputEnv(c), o)
		},
	}
}

func runInit(e *env, o initOptions) error {
	if err := initInstructions(e, o); err != nil {
		return err
	}
	if o.WithSandbox {
		return initSandbox(e, o)
	}
	return nil
}

// initInstructions adds (or with --force replaces) the section in the chosen file.
func initInstructions(e *env, o initOptions) error {
	path := initTarget(o.Dir, o.File)
	name := filepath.Base(path)
	if o.File == "" && !o.Force {
		// Already taught through the other file: nothing to add.
		for _, other := range instructionFiles {
			if data, err := os.ReadFile(filepath.Join(o.Dir, other)); err == nil && other != name && containsMarker(data) {
				fmt.Fprintf(e.stdout, "swarm: %s already contains swarm instructions\n", other)
				return nil
			}
		}
	}
	data, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !os.IsNotExist(err) {
		return fail("cannot read %s: %w", path, err)
	}
	action, content := planSection(string(data), exists, o.Force)
	if action == actionPresent {
		fmt.Fprintf(e.stdout, "swarm: %s already contains swarm instructions\n", name)
		return nil
	}
	if o.DryRun {
		fmt.Fprintln(e.stdout, dryRunLine(action, name))
		return nil
	}
	if err := state.WriteFileAtomic(path, []byte(content), filePerm(path)); err != nil {
		return fail("cannot write %s: %w", path, err)
	}
	fmt.Fprintln(e.stdout, doneLine(action, name))
	return nil
}

func containsMarker(data []byte) bool {
	_, _, ok := findSection(string(data), templates.AgentsMarker)
	return ok
}

// filePerm keeps an existing file's mode; a new file is readable by all, like any source file.
func filePerm(path string) os.FileMode {
	if fi, err := os.Stat(path); err == nil {
		return fi.Mode().Perm()
	}
	return 0o644
}

func dryRunLine(a initAction, name string) string {
	switch a {
	case actionCreate:
		return fmt.Sprintf("Would create %s with swarm agent instructions", name)
	case actionReplace:
		return fmt.Sprintf("Would replace the swarm instructions in %s", name)
	}
	return fmt.Sprintf("Would append swarm instructions to %s", name)
}

func doneLine(a initAction, name string) string {
	switch a {
	case actionCreate:
		return "Created " + name
	case actionReplace:
		return "Updated swarm instructions in " + name
	}
	return "Added swarm instructions to " + name
}

// initSandbox writes the sandbox files that do not exist yet.
func initSandbox(e *env, o initOptions) error {
	for _, f := range templates.SandboxFiles {
		path := filepath.Join(o.Dir, f.Name)
		if _, err := os.Lstat(path); err == nil {
			fmt.Fprintf(e.stdout, "swarm: %s already exists, skipping\n", f.Name)
			continue
		}
		if o.DryRun {
			fmt.Fprintf(e.stdout, "Would create %s\n", f.Name)
			continue
		}
		data, err := templates.Sandbox.ReadFile("sandbox/" + f.Name)
		if err != nil {
			return fail("%w", err)
		}
		mode := os.FileMode(0o644)
		if f.Executable {
			mode = 0o755
		}
		if err := state.WriteFileAtomic(path, data, mode); err != nil {
			return fail("cannot write %s: %w", path, err)
		}
		fmt.Fprintf(e.stdout, "Created %s\n", f.Name)
	}
	return nil
}
