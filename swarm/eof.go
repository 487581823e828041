package swarm

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// eofOptions are the arguments of `swarm eof`.
type eofOptions struct{ Args []string }

func (o eofOptions) check() error {
	return exactlyOneName(o.Args, "swarm eof NAME")
}

func eofCommand() *cli.Command {
	return &cli.Command{
		Name:      "eof",
		Usage:     "press Ctrl-D in a tmux worker",
		ArgsUsage: "NAME",
		Description: `Examples:
   swarm eof w1`,
		Action: func(c *cli.Context) error {
			o := eofOptions{Args: c.Args().Slice()}
			return withEnv(c, o.check, func(e *env) error { return runEOF(e, o) })
		},
	}
}

func runEOF(e *env, o eofOptions) error {
	w, _, err := e.Load(o.Args[0])
	if err != nil {
		return err
	}
	if err := needTmuxRunning(w, "eof"); err != nil {
		return err
	}
	if err := e.TmuxFor(w).SendKeys(w.Tmux.PaneID, "C-d"); err != nil {
		return fail("cannot send EOF to '%s': %w", w.Name, err)
	}
	fmt.Fprintf(e.stdout, "sent EOF to %s\n", w.Name)
	return nil
}
