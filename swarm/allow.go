package swarm

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/config"
)

// `swarm allow`: consent to the commands a project's swarm.toml runs (see ralph/config/consent.go).

func allowCommand() *cli.Command {
	return &cli.Command{
		Name:      "allow",
		Usage:     "let a project's swarm.toml run the commands it names (hooks, checks, notify, agents), or apply a file that is not yours alone",
		ArgsUsage: "[PATH]",
		Description: `A swarm.toml that comes with a repository can name commands: hooks, command and script
checkers, the Regent's test command, the notify command and webhook, the agents' commands. swarm
runs none of them until you allowed that file as it is now; a spawn that would use them is
refused, with a message saying so. Allowing records the file's path and a hash of its content
in your own config directory (` + "`~/.config/swarm/allowed.json`" + `, or under $XDG_CONFIG_HOME),
never in the project: when the file changes (a pull, a checkout), swarm asks again. Settings that
run nothing (iteration limits, patterns, timeouts), your own config.toml and flags given on the
command line need no consent. The scripts a checker names are not part of the hash: read them too.

A configuration file that is not yours alone (another user's, or one that others can write to,
or in a directory others can write to) applies not at all until you allowed it: a spawn under it
goes on without its settings and says so ("ignored ...: it belongs to bob, not you").
Allowing it applies it, as it is now.

PATH is a swarm.toml or a directory to look for one in (upwards to the repository root); by
default the one that applies in the current directory.

Examples:
   swarm allow                      # the swarm.toml of this project, as it is now
   swarm allow ~/src/app/swarm.toml
   swarm allow --revoke             # forget it: its commands are refused again
   swarm allow --list
   swarm allow --list --format json`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "revoke", Usage: "forget the consent to the file"},
			&cli.BoolFlag{Name: "list", Usage: "list the files you allowed, and whether each changed since"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json (with --list)"},
		},
		Action: func(c *cli.Context) error {
			format, err := formatFlag(c, "text", "json")
			if err != nil {
				return err
			}
			switch {
			case c.NArg() > 1:
				return usageError("swarm allow [--revoke] [PATH] | swarm allow --list [--format json]")
			case c.Bool("list") && (c.Bool("revoke") || c.NArg() > 0):
				return fail("--list takes no PATH and no --revoke")
			case c.Bool("list"):
				return listAllowed(c, format)
			case c.IsSet("format"):
				return fail("--format goes with --list")
			}
			path, err := allowTarget(c.Args().First())
			if err != nil {
				return err
			}
			if c.Bool("revoke") {
				return revokeAllowed(c, path)
			}
			return allowFile(c, path)
		},
	}
}

// allowTarget is the swarm.toml that PATH names: the file, or the one found from a directory
// (the current one when PATH is empty).
func allowTarget(arg string) (string, error) {
	if arg == "" {
		arg = "."
	}
	fi, err := os.Stat(arg)
	if err != nil {
		return "", fail("%w", err)
	}
	if !fi.IsDir() {
		return arg, nil
	}
	dir, err := filepath.Abs(arg)
	if err != nil {
		return "", fail("%w", err)
	}
	found := config.FindProjectConfig(dir)
	if found == "" {
		return "", fail("no %s in %s or above it (up to the repository root)", config.ProjectConfigName, dir)
	}
	return found, nil
}

func allowFile(c *cli.Context, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fail("%w", err)
	}
	entry, err := config.Allow(path, time.Now())
	if err != nil {
		return fail("cannot record the consent: %w", err)
	}
	out := c.App.Writer
	keys := config.CommandKeys(data)
	if len(keys) == 0 {
		fmt.Fprintf(out, "allowed %s (it runs no commands now)\n", entry.Path)
	} else {
		fmt.Fprintf(out, "allowed %s; it runs:\n", entry.Path)
	}
	for _, k := range keys {
		fmt.Fprintf(out, "  %s\n", k)
	}
	if why := config.Distrust(path); why != "" {
		fmt.Fprintf(out, "it is not yours alone (%s): its settings apply as long as it stays as it is now\n", why)
	}
	return nil
}

func revokeAllowed(c *cli.Context, path string) error {
	found, err := config.Revoke(path)
	if err != nil {
		return fail("cannot record it: %w", err)
	}
	canon, _ := config.CanonicalPath(path)
	if !found {
		return fail("%s was not allowed", canon)
	}
	fmt.Fprintf(c.App.Writer, "revoked %s: its commands are refused until you allow it again\n", canon)
	return nil
}

// allowedRow is one consent as --list shows it: whether the file is still as it was allowed.
type allowedRow struct {
	config.AllowedFile
	State string `json:"state"` // allowed, changed or missing
}

func listAllowed(c *cli.Context, format string) error {
	files, err := config.AllowedFiles()
	if err != nil {
		return fail("%w", err)
	}
	rows := make([]allowedRow, 0, len(files))
	for _, f := range files {
		rows = append(rows, allowedRow{AllowedFile: f, State: allowedState(f)})
	}
	out := c.App.Writer
	if format == "json" {
		return printJSON(&env{stdout: out}, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(out, "no project files allowed")
		return nil
	}
	for _, r := range rows {
		fmt.Fprintf(out, "%-8s %s  %s\n", r.State, r.Allowed, r.Path)
	}
	return nil
}

// allowedState says whether the file allowed is still there with the content allowed.
func allowedState(f config.AllowedFile) string {
	data, err := os.ReadFile(f.Path)
	if err != nil {
		return "missing"
	}
	if config.ConsentHash(data) != f.SHA256 {
		return "changed"
	}
	return "allowed"
}
