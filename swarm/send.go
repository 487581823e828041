package swarm

import (
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/state"
)

// sendOptions are the arguments of `swarm send`.
type sendOptions struct {
	Args    []string
	All     bool
	NoEnter bool
	Raw     bool
	Stdin   io.Reader // read when the text is "-"
}

// split tells the worker names from the text.
func (o sendOptions) split() (names []string, text string, err error) {
	if o.All {
		if len(o.Args) != 1 {
			return nil, "", usageError("swarm send --all TEXT")
		}
		return nil, o.Args[0], nil
	}
	if len(o.Args) != 2 {
		return nil, "", usageError("swarm send NAME TEXT")
	}
	return o.Args[:1], o.Args[1], nil
}

func sendCommand() *cli.Command {
	return &cli.Command{
		Name:      "send",
		Usage:     "type text into a worker and press Enter",
		ArgsUsage: "NAME TEXT  (or --all TEXT; TEXT '-' reads standard input)",
		Description: `Delivers TEXT byte-exact (quotes, ';', '$()', newlines and all) through a tmux paste
buffer, then presses Enter. By default the input line is cleared first (C-u).

Examples:
   swarm send w1 "run the tests and fix what fails"
   swarm send w1 --no-enter "draft, do not submit"
   swarm send --all "/exit"
   swarm send w1 - < instructions.md`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every running tmux worker"},
			&cli.BoolFlag{Name: "no-enter", Usage: "do not press Enter after the text"},
			&cli.BoolFlag{Name: "raw", Usage: "send as is: no clearing of the input line, no bracketed paste"},
		},
		Action: func(c *cli.Context) error {
			o := sendOptions{Args: c.Args().Slice(), All: c.Bool("all"), NoEnter: c.Bool("no-enter"), Raw: c.Bool("raw"), Stdin: os.Stdin}
			check := func() error { _, _, err := o.split(); return err }
			return withEnv(c, check, func(e *env) error { return runSend(e, o) })
		},
	}
}

func runSend(e *env, o sendOptions) error {
	names, text, err := o.split()
	if err != nil {
		return err
	}
	if text == "-" {
		data, err := io.ReadAll(o.Stdin)
		if err != nil {
			return fail("cannot read standard input: %w", err)
		}
		text = string(data)
	}
	ws, _, err := e.Targets(names, o.All, func(w *state.Worker) bool { return w.Tmux != nil && running(w) })
	if err != nil {
		return err
	}
	for _, w := range ws {
		if err := needTmuxRunning(w, "send"); err != nil {
			return err
		}
	}
	for _, w := range ws {
		if err := e.Type(w, text, !o.Raw, !o.NoEnter); err != nil {
			return fail("cannot send to '%s': %w", w.Name, err)
		}
		fmt.Fprintf(e.stdout, "sent to %s\n", w.Name)
	}
	return nil
}

func running(w *state.Worker) bool { return w.Status == state.StatusRunning }

func needTmuxRunning(w *state.Worker, what string) error {
	if w.Tmux == nil {
		return fail("worker '%s' is not a tmux worker (%s needs a worker spawned with --tmux)", w.Name, what)
	}
	if w.Status != state.StatusRunning {
		return fail("worker '%s' is not running", w.Name)
	}
	return nil
}
