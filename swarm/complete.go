package swarm

import (
	"os"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/guide"
)

// What a shell completes: the words after "swarm" are walked down the command tree, and the
// last one (the word being typed, maybe empty) is completed as a flag, a command of the group
// reached, a worker's name where the command takes names, or a guide's topic (swarm guide). The
// shells' scripts (see completion.go) ask the hidden __complete command, so the completions
// follow the commands as they are, with no list to keep in step.

// completeCommand is what the completion scripts run: `swarm __complete -- WORDS...` prints
// one candidate per line.
func completeCommand() *cli.Command {
	return &cli.Command{
		Name:            "__complete",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			words := c.Args().Slice()
			if len(words) > 0 && words[0] == "--" {
				words = words[1:]
			}
			names := func(dirFlag string) []string { return workerNames(c, dirFlag) }
			for _, s := range completions(c.App, words, names) {
				_, _ = c.App.Writer.Write([]byte(s + "\n"))
			}
			return nil
		},
	}
}

// completionPoint is where the walk down the command line ended.
type completionPoint struct {
	cmds     []*cli.Command // the commands that may come next
	flags    []cli.Flag     // the flags of the command reached (the app's at the top)
	names    bool           // the command reached takes worker names
	topics   bool           // the command reached takes a guide's topic
	afterArg bool           // past "--": the words are a command of the user's
	value    bool           // the word being typed is a flag's value
	dir      string         // --swarm-dir as given on the line
}

// completions lists the candidates for the last of words (after "swarm"); names lists the
// workers, in the state directory given on the line ("" when none is).
func completions(app *cli.App, words []string, names func(dir string) []string) []string {
	if len(words) == 0 {
		words = []string{""}
	}
	cur := words[len(words)-1]
	p := walkCommandLine(app, words[:len(words)-1])
	var out []string
	switch {
	case p.afterArg || p.value:
		return nil
	case strings.HasPrefix(cur, "-"):
		out = flagNames(p.flags)
	case len(p.cmds) > 0:
		for _, c := range p.cmds {
			if !c.Hidden {
				out = append(out, c.Name)
			}
		}
	case p.names:
		out = names(p.dir)
	case p.topics:
		out = guide.Names()
	}
	return withPrefix(out, cur)
}

// walkCommandLine follows the typed words down the command tree.
func walkCommandLine(app *cli.App, words []string) completionPoint {
	p := completionPoint{cmds: app.Commands, flags: app.Flags}
	for i := 0; i < len(words); i++ {
		w := words[i]
		p.value = false
		switch {
		case w == "--":
			p.afterArg = true
			return p
		case strings.HasPrefix(w, "-"):
			name, _, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
			if flagTakesValue(app.Flags, p.flags, w) && !hasValue {
				if i+1 == len(words) {
					p.value = true
				} else if name == "swarm-dir" {
					p.dir = words[i+1]
				}
				i++
			}
		default:
			c := findCommand(p.cmds, w)
			if c == nil {
				continue // an argument
			}
			p.cmds, p.flags = c.Subcommands, c.Flags
			p.names = strings.HasPrefix(c.ArgsUsage, "NAME")
			p.topics = c.ArgsUsage == guideArgs
		}
	}
	return p
}

// flagNames are the flags' long names (and one-letter ones), as typed.
func flagNames(flags []cli.Flag) []string {
	var out []string
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		for _, n := range f.Names() {
			if len(n) == 1 {
				out = append(out, "-"+n)
			} else {
				out = append(out, "--"+n)
			}
		}
	}
	return out
}

func withPrefix(words []string, prefix string) []string {
	var out []string
	for _, w := range words {
		if strings.HasPrefix(w, prefix) {
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}

// workerNames lists the workers of the state directory, read as stored (no tmux is asked:
// completion must answer at once); nothing when there is no state directory yet (none is made).
func workerNames(c *cli.Context, dir string) []string {
	if dir == "" {
		root, err := stateRoot(c)
		if err != nil {
			return nil
		}
		dir = root
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil
	}
	ws, err := (&state.Dir{Root: dir}).PeekWorkers()
	if err != nil {
		return nil
	}
	var out []string
	for _, w := range ws.List() {
		out = append(out, w.Name)
	}
	return out
}
