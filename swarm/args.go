package swarm

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// reorderArgs lets flags follow positional arguments (`swarm peek w1 -n 5`), which urfave/cli
// does not do on its own. Everything after a literal "--" is left untouched.
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out, i := leadingFlags(app.Flags, args, 1)
	cmd, n := commandPath(app.Commands, args[i:])
	out = append(out, args[i:i+n]...)
	i += n
	if cmd == nil || cmd.SkipFlagParsing {
		return append(out, args[i:]...)
	}
	flags, positional := splitFlags(cmd, args[i:])
	out = append(out, flags...)
	if len(positional) > 0 && positional[0] != "--" {
		// Keep urfave/cli from reading a positional that starts with "-" as a flag.
		out = append(out, "--")
	}
	return append(out, positional...)
}

// leadingFlags copies the global flags before the command name, from args[i] on, and returns
// where the command name starts.
func leadingFlags(flags []cli.Flag, args []string, i int) ([]string, int) {
	out := append([]string{}, args[:i]...)
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "--" {
		out = append(out, args[i])
		if takesValue(flags, args[i]) && !strings.Contains(args[i], "=") && i+1 < len(args) {
			i++
			out = append(out, args[i])
		}
		i++
	}
	return out, i
}

// commandPath finds the (sub)command the words name and how many words that took.
func commandPath(cmds []*cli.Command, words []string) (*cli.Command, int) {
	var cmd *cli.Command
	n := 0
	for n < len(words) {
		next := findCommand(cmds, words[n])
		if next == nil {
			break
		}
		cmd, cmds = next, next.Subcommands
		n++
		if len(cmds) == 0 {
			break
		}
	}
	return cmd, n
}

// splitFlags separates a command's flags (with their values) from its positional words.
func splitFlags(cmd *cli.Command, args []string) (flags, positional []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || len(positional) > 0 && commandTakesArgv(cmd) {
			// After "--", or past the first word of a program to run, every word belongs to
			// the positional arguments.
			return flags, append(positional, args[i:]...)
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			flags = append(flags, a)
			if takesValue(cmd.Flags, a) && !strings.Contains(a, "=") && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
			continue
		}
		positional = append(positional, a)
	}
	return flags, positional
}

// commandTakesArgv marks commands whose positional arguments are a program and its arguments.
func commandTakesArgv(cmd *cli.Command) bool {
	return cmd.Name == "spawn" || cmd.Name == "__run"
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.Name == name {
			return c
		}
		for _, a := range c.Aliases {
			if a == name {
				return c
			}
		}
	}
	return nil
}

func takesValue(flags []cli.Flag, arg string) bool {
	name := strings.TrimLeft(arg, "-")
	if k, _, ok := strings.Cut(name, "="); ok {
		name = k
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n != name {
				continue
			}
			if bf, ok := f.(*cli.BoolFlag); ok && bf != nil {
				return false
			}
			return true
		}
	}
	return false
}
