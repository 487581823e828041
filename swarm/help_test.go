package swarm

import (
	"io"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// Every command shows its own help with a worker name before --help, as scripts and people
// type it (`swarm kill w1 --help`), and with --help before the name.
func TestHelpAfterANameEverywhere(t *testing.T) {
	dir := t.TempDir() + "/never-created"
	var walk func(path []string, cmds []*cli.Command)
	walk = func(path []string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Hidden {
				continue
			}
			p := append(append([]string{}, path...), c.Name)
			if len(c.Subcommands) > 0 {
				walk(p, c.Subcommands)
				continue
			}
			tails := [][]string{{"w1", "--help"}, {"--help", "w1"}, {"w1", "-h"}}
			if commandTakesArgv(c) {
				// After the first word of the program to run, --help is the program's.
				tails = [][]string{{"--help"}, {"--name", "w1", "--help"}}
			}
			for _, tail := range tails {
				args := append(append([]string{"swarm", "--swarm-dir", dir}, p...), tail...)
				var out, errb strings.Builder
				code := Run(args, &out, &errb)
				want := "swarm " + strings.Join(p, " ") + " - "
				if code != 0 || !strings.Contains(out.String(), want) || errb.Len() > 0 {
					t.Errorf("%q: exit %d, stdout lacks %q or stderr %q", args[3:], code, want, errb.String())
				}
			}
		}
	}
	walk(nil, newApp(io.Discard, io.Discard).Commands)
}
