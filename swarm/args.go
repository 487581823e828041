package swarm

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// reorderArgs lets flags follow positional arguments (`swarm peek w1 -n 5`), which urfave/cli
// does not do on its own, and puts every flag where it is defined: swarm's own flags
// (--tmux-socket, --swarm-dir) may come after the command and a command's flags before it
// (`swarm spawn --tmux-socket X ...`, `swarm --session s spawn ...`), as scripts written for the
// Python swarm pass them. Everything after a literal "--" is left untouched.
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	global, early, i := leadingFlags(app, args, 1)
	cmd, n := commandPath(app.Commands, args[i:])
	path := args[i : i+n]
	i += n
	if cmd == nil || cmd.SkipFlagParsing {
		out := append(append(global, early...), path...)
		return append(out, args[i:]...)
	}
	flags, positional := splitFlags(app.Flags, cmd, args[i:])
	lifted, own := liftGlobal(app.Flags, cmd.Flags, append(early, flags...))
	out := append(append(global, lifted...), path...)
	if wantsHelp(own) {
		// `swarm kill w1 --help` is a request for kill's help, not for a help topic "w1".
		return append(out, "--help")
	}
	out = append(out, own...)
	if len(positional) > 0 && positional[0] != "--" {
		// Keep urfave/cli from reading a positional that starts with "-" as a flag.
		out = append(out, "--")
	}
	return append(out, positional...)
}

// leadingFlags copies the flags before the command name, from args[i] on: swarm's own flags
// (with their values) into global, others into early for the command to claim. It returns
// where the command name starts.
func leadingFlags(app *cli.App, args []string, i int) (global, early []string, next int) {
	flags := app.Flags
	global = append([]string{}, args[:i]...)
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "--" {
		if !defines(flags, args[i]) && isHelpOrVersion(args[i]) {
			break
		}
		to := &early
		if defines(flags, args[i]) {
			to = &global
		}
		*to = append(*to, args[i])
		if leadingValue(app, args, i) {
			i++
			*to = append(*to, args[i])
		}
		i++
	}
	return global, early, i
}

// leadingValue says whether the flag at args[i], before the command name, is followed by its
// value. A command's flag is not known until the command is, so one of those is taken to have a
// value unless the next word is a command name (`--session s spawn` vs `--all kill`).
func leadingValue(app *cli.App, args []string, i int) bool {
	if strings.Contains(args[i], "=") || i+1 >= len(args) {
		return false
	}
	if defines(app.Flags, args[i]) {
		return takesValue(app.Flags, args[i])
	}
	next := args[i+1]
	return !strings.HasPrefix(next, "-") && findCommand(app.Commands, next) == nil
}

// liftGlobal separates flags (each with its value) that the command does not define but swarm
// does from the command's own.
func liftGlobal(appFlags, cmdFlags []cli.Flag, flags []string) (lifted, own []string) {
	for i := 0; i < len(flags); i++ {
		a := flags[i]
		to := &own
		if !defines(cmdFlags, a) && defines(appFlags, a) {
			to = &lifted
		}
		*to = append(*to, a)
		if flagTakesValue(appFlags, cmdFlags, a) && !strings.Contains(a, "=") && i+1 < len(flags) {
			i++
			*to = append(*to, flags[i])
		}
	}
	return lifted, own
}

func wantsHelp(flags []string) bool {
	for _, f := range flags {
		if f == "-h" || f == "--help" {
			return true
		}
	}
	return false
}

func isHelpOrVersion(arg string) bool {
	switch arg {
	case "-h", "--help", "-v", "--version":
		return true
	}
	return false
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
func splitFlags(appFlags []cli.Flag, cmd *cli.Command, args []string) (flags, positional []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(positional) > 0 && commandTakesArgv(cmd) {
			// Past the first word of a program to run, every word is the program's, "--" too.
			return flags, append(positional, args[i:]...)
		}
		if a == "--" {
			// After "--" every word is positional. Before the first positional the "--" is
			// kept (it marks where a program starts); after one it only ends the flags, and
			// one "--" in front of all positionals does that (`swarm send w1 -- -n`).
			if len(positional) == 0 {
				return flags, args[i:]
			}
			return flags, append(positional, args[i+1:]...)
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			flags = append(flags, a)
			if flagTakesValue(appFlags, cmd.Flags, a) && !strings.Contains(a, "=") && i+1 < len(args) {
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
	f := lookupFlag(flags, arg)
	if f == nil {
		return false
	}
	if g, ok := f.(*cli.GenericFlag); ok {
		// A value that may stand alone (--sandbox) takes none unless given with "=".
		if b, ok := g.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			return false
		}
	}
	_, isBool := f.(*cli.BoolFlag)
	return !isBool
}

// flagTakesValue says whether a flag given to a command is followed by a value: the command's
// own flag if it has one by that name, else swarm's.
func flagTakesValue(appFlags, cmdFlags []cli.Flag, arg string) bool {
	if defines(cmdFlags, arg) {
		return takesValue(cmdFlags, arg)
	}
	return takesValue(appFlags, arg)
}

func defines(flags []cli.Flag, arg string) bool { return lookupFlag(flags, arg) != nil }

// lookupFlag finds the flag a word such as "--name", "-n" or "--name=x" names.
func lookupFlag(flags []cli.Flag, arg string) cli.Flag {
	name := strings.TrimLeft(arg, "-")
	if k, _, ok := strings.Cut(name, "="); ok {
		name = k
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

// requiredBy names what makes the loop flags required, in the user's own words.
func requiredBy(c *cli.Context) string {
	if c.Bool("ralph") || c.Command == nil {
		return "--ralph"
	}
	return typedCommand(c)
}

// typedCommand is the command being run as typed from the top: "swarm ralph spawn".
func typedCommand(c *cli.Context) string {
	var names []string
	for _, ctx := range c.Lineage() {
		if ctx.Command != nil && ctx.Command.Name != "" {
			names = append([]string{ctx.Command.Name}, names...)
		}
	}
	return strings.Join(names, " ")
}
