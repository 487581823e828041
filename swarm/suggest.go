package swarm

import (
	"sort"
	"strings"

	"github.com/urfave/cli/v2"
	"github.com/xrash/smetrics"
)

// Usage mistakes caught before the command line is parsed: a word where a command belongs that
// names none, and a command group given without its command.

// unknownCommand returns an error naming the first word, where a command was expected, that is
// not one, with the nearest command names; nil when the command path is fine.
func unknownCommand(app *cli.App, args []string) error {
	_, _, i := leadingFlags(app, args, 1)
	cmds, path := app.Commands, "swarm"
	for ; i < len(args); i++ {
		word := args[i]
		if strings.HasPrefix(word, "-") {
			return nil
		}
		c := findCommand(cmds, word)
		if c == nil {
			msg := "unknown command '" + word + "' for '" + path + "'"
			if near := nearestCommands(cmds, word); len(near) > 0 {
				msg += "; did you mean " + strings.Join(near, " or ") + "?"
			}
			return fail("%s (see '%s --help')", msg, path)
		}
		if len(c.Subcommands) == 0 {
			return nil
		}
		cmds, path = c.Subcommands, path+" "+c.Name
	}
	return nil
}

// nearestCommands lists up to three visible command names that the typed word is likely a
// slip for: names it starts, or names close to it by Jaro-Winkler similarity.
func nearestCommands(cmds []*cli.Command, word string) []string {
	type scored struct {
		name  string
		score float64
	}
	var found []scored
	for _, c := range cmds {
		if c.Hidden {
			continue
		}
		for _, name := range c.Names() {
			score := smetrics.JaroWinkler(word, name, 0.7, 4)
			if strings.HasPrefix(name, word) {
				score = 1 + float64(len(word))/float64(len(name))
			}
			if score >= 0.8 {
				found = append(found, scored{name, score})
			}
		}
	}
	sort.SliceStable(found, func(a, b int) bool { return found[a].score > found[b].score })
	var out []string
	for _, s := range found {
		if len(out) == 3 {
			break
		}
		out = append(out, "'"+s.name+"'")
	}
	return out
}

// needsSubcommand makes a command group (`swarm ralph`) given alone print its help and fail,
// as any other incomplete command line does.
func needsSubcommand(c *cli.Context) error {
	if c.Args().Len() == 0 {
		_ = cli.ShowSubcommandHelp(c)
		return exitCode(ExitError)
	}
	return nil
}
