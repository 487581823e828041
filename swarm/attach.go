package swarm

import (
	"io"
	"os"
	"os/exec"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/tmux"
)

// attachOptions are the arguments of `swarm attach`.
type attachOptions struct {
	Args []string
	// Terminal reports whether standard input is a terminal (attaching needs one).
	Terminal bool
}

func (o attachOptions) check() error {
	return exactlyOneName(o.Args, "swarm attach NAME")
}

func attachCommand() *cli.Command {
	return &cli.Command{
		Name:      "attach",
		Usage:     "open a worker's tmux window in this terminal",
		ArgsUsage: "NAME",
		Description: `Attaches this terminal to the worker's window on swarm's private tmux server (or switches to
it when this terminal is already a client of that server). Detach with the tmux prefix, then d
(C-b d unless ~/.config/swarm/tmux.conf sets another prefix).

From inside your own tmux, both servers share the prefix and the outer one takes it: press it
twice, then d (C-b C-b d), or give swarm's server a prefix of its own in
~/.config/swarm/tmux.conf (set -g prefix C-a). That file ($XDG_CONFIG_HOME/swarm/tmux.conf)
is read after swarm's own lines when swarm's server starts.

Examples:
   swarm attach w1`,
		Action: func(c *cli.Context) error {
			// tmux draws on standard output and reads keys from standard input.
			o := attachOptions{Args: c.Args().Slice(), Terminal: isTerminal(os.Stdin) && isTerminal(os.Stdout)}
			return withEnv(c, o.check, func(e *env) error { return runAttach(e, o) })
		},
	}
}

func runAttach(e *env, o attachOptions) error {
	w, _, err := e.Load(o.Args[0])
	if err != nil {
		return err
	}
	if w.Tmux == nil {
		return fail("worker '%s' is not a tmux worker; use 'swarm logs %s --follow'", w.Name, w.Name)
	}
	if _, ok := e.OwnPane(w); !ok {
		return fail("worker '%s' has no tmux window any more", w.Name)
	}
	tm := e.TmuxFor(w)
	bin, err := exec.LookPath(tm.Bin())
	if err != nil {
		return fail("tmux is not installed")
	}
	if tm.InsideServer() {
		if err := tm.SwitchClient(w.Tmux.PaneID); err != nil {
			return fail("cannot switch to '%s': %w", w.Name, err)
		}
		return nil
	}
	if !o.Terminal {
		return fail("attach needs a terminal; use 'swarm peek %s' or 'swarm logs %s --follow' instead, or attach from a terminal by hand: tmux -L %s attach-session -t '%s'",
			w.Name, w.Name, tm.Socket(), w.Tmux.PaneID)
	}
	argv := append([]string{bin}, tm.AttachArgs(w.Tmux.PaneID)...)
	return syscall.Exec(bin, argv, tmux.AttachEnv(os.Environ()))
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// writesToTerminal reports whether what is written to w reaches a terminal (a person), not a
// pipe, a file or a buffer.
func writesToTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminal(f)
}
