package swarm

import (
	"fmt"
	"io"
	"os"
	"time"

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
		if err := sendText(e, w, text, !o.Raw, !o.NoEnter); err != nil {
			return fail("cannot send to '%s': %w", w.Name, err)
		}
		fmt.Fprintf(e.stdout, "sent to %s\n", w.Name)
	}
	return nil
}

// inputSettle lets a TUI finish taking in a paste before Enter arrives; some read an Enter that
// comes in the same burst as part of the pasted text.
const inputSettle = 150 * time.Millisecond

// sendText types text into the worker's pane, one typist at a time: a heartbeat's clearing of
// the line must not land between a send's paste and its Enter.
func sendText(e *env, w *state.Worker, text string, clean, enter bool) error {
	if e.Dir() != nil {
		lock, ok, err := e.Dir().LockInput(w.Name)
		if err != nil {
			return err
		}
		if !ok {
			return fail("worker '%s': something else has been typing into its pane for %s", w.Name, state.TypingWait)
		}
		defer lock.Unlock()
	}
	return typeText(e, w, text, clean, enter)
}

func typeText(e *env, w *state.Worker, text string, clean, enter bool) error {
	tm, pane := e.TmuxFor(w), w.Tmux.PaneID
	if clean {
		// C-u alone: an Escape would interrupt an agent at work (Claude Code, Codex), and an
		// Escape sent together with C-u reads as Alt-C-u, which clears nothing.
		if err := tm.SendKeys(pane, "C-u"); err != nil {
			return err
		}
	}
	if err := tm.Paste(pane, text, clean); err != nil {
		return err
	}
	if enter {
		if text != "" {
			time.Sleep(inputSettle)
		}
		return tm.SendKeys(pane, "Enter")
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
