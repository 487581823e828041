package swarm

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/acarl005/stripansi"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
	"github.com/urfave/cli/v2"
)

// trimBlankTail drops the blank padding tmux reports below the last line of output.
func trimBlankTail(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(strings.ReplaceAll(lines[len(lines)-1], "\u00a0", " ")) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func lastN(lines []string, n int) []string {
	if n > 0 && len(lines) > n {
		return lines[len(lines)-n:]
	}
	return lines
}

// screenLines returns the worker's output as lines: the tmux pane (history lines of scrollback
// above the screen; -1 for all) or, for a process worker, its stdout (or stderr) log.
func screenLines(e *env, w *state.Worker, history int, stream string) ([]string, error) {
	if w.Tmux != nil {
		out, err := e.tm.Capture(w.Tmux.PaneID, history)
		if err != nil {
			return nil, fail("worker '%s' has no screen any more (its tmux window is gone)", w.Name)
		}
		return trimBlankTail(splitLines(out)), nil
	}
	data, err := os.ReadFile(e.dir.LogPath(w.Name, stream))
	if err != nil {
		return nil, fail("no log for worker '%s': %v", w.Name, err)
	}
	return trimBlankTail(splitLines(stripansi.Strip(string(data)))), nil
}

func peekCommand() *cli.Command {
	return &cli.Command{
		Name:      "peek",
		Usage:     "print the last lines of a worker's screen",
		ArgsUsage: "NAME...",
		Description: `Prints the last N lines of the worker's tmux pane (or of its stdout log for a process
worker), without the blank padding below the last line.

Examples:
   swarm peek w1
   swarm peek w1 -n 5
   swarm peek --all`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "lines", Aliases: []string{"n"}, Usage: "how many lines", Value: 30},
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every running worker"},
		},
		Action: func(c *cli.Context) error {
			n := c.Int("lines")
			if n <= 0 {
				return fail("-n must be a positive number of lines")
			}
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			ws, _, err := e.targets(c.Args().Slice(), c.Bool("all"), running)
			if err != nil {
				return err
			}
			for i, w := range ws {
				lines, err := screenLines(e, w, n, "stdout")
				if err != nil {
					return err
				}
				if len(ws) > 1 || c.Bool("all") {
					if i > 0 {
						fmt.Fprintln(e.stdout)
					}
					fmt.Fprintf(e.stdout, "=== %s ===\n", w.Name)
				}
				for _, l := range lastN(lines, n) {
					fmt.Fprintln(e.stdout, l)
				}
			}
			return nil
		},
	}
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

// inputSettle lets a TUI finish taking in a paste before Enter arrives; some read an Enter that
// comes in the same burst as part of the pasted text.
const inputSettle = 150 * time.Millisecond

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
			args := c.Args().Slice()
			var names []string
			var text string
			if c.Bool("all") {
				if len(args) != 1 {
					return fail("usage: swarm send --all TEXT")
				}
				text = args[0]
			} else {
				if len(args) != 2 {
					return fail("usage: swarm send NAME TEXT")
				}
				names, text = args[:1], args[1]
			}
			if text == "-" {
				data, err := io.ReadAll(os.Stdin)
				if err != nil {
					return fail("cannot read standard input: %v", err)
				}
				text = string(data)
			}
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			ws, _, err := e.targets(names, c.Bool("all"), func(w *state.Worker) bool { return w.Tmux != nil && running(w) })
			if err != nil {
				return err
			}
			for _, w := range ws {
				if err := needTmuxRunning(w, "send"); err != nil {
					return err
				}
			}
			for _, w := range ws {
				if err := sendText(e, w.Tmux.PaneID, text, !c.Bool("raw"), !c.Bool("no-enter")); err != nil {
					return fail("cannot send to '%s': %v", w.Name, err)
				}
				fmt.Fprintf(e.stdout, "sent to %s\n", w.Name)
			}
			return nil
		},
	}
}

func sendText(e *env, pane, text string, clean, enter bool) error {
	if clean {
		// C-u alone: an Escape would interrupt an agent at work (Claude Code, Codex), and an
		// Escape sent together with C-u reads as Alt-C-u, which clears nothing.
		if err := e.tm.SendKeys(pane, "C-u"); err != nil {
			return err
		}
	}
	if err := e.tm.Paste(pane, text, clean); err != nil {
		return err
	}
	if enter {
		if text != "" {
			time.Sleep(inputSettle)
		}
		return e.tm.SendKeys(pane, "Enter")
	}
	return nil
}

func interruptCommand() *cli.Command {
	return &cli.Command{
		Name:      "interrupt",
		Usage:     "press Ctrl-C in a worker (SIGINT to a process worker's group)",
		ArgsUsage: "NAME...",
		Description: `Examples:
   swarm interrupt w1
   swarm interrupt --all`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every running worker"}},
		Action: func(c *cli.Context) error {
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			ws, _, err := e.targets(c.Args().Slice(), c.Bool("all"), running)
			if err != nil {
				return err
			}
			for _, w := range ws {
				if w.Status != state.StatusRunning {
					return fail("worker '%s' is not running", w.Name)
				}
			}
			for _, w := range ws {
				if w.Tmux != nil {
					err = e.tm.SendKeys(w.Tmux.PaneID, "C-c")
				} else {
					err = syscall.Kill(-w.PID, syscall.SIGINT)
				}
				if err != nil {
					return fail("cannot interrupt '%s': %v", w.Name, err)
				}
				fmt.Fprintf(e.stdout, "interrupted %s\n", w.Name)
			}
			return nil
		},
	}
}

func eofCommand() *cli.Command {
	return &cli.Command{
		Name:      "eof",
		Usage:     "press Ctrl-D in a tmux worker",
		ArgsUsage: "NAME",
		Description: `Examples:
   swarm eof w1`,
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return fail("usage: swarm eof NAME")
			}
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			w, _, err := e.loadWorker(c.Args().First())
			if err != nil {
				return err
			}
			if err := needTmuxRunning(w, "eof"); err != nil {
				return err
			}
			if err := e.tm.SendKeys(w.Tmux.PaneID, "C-d"); err != nil {
				return fail("cannot send EOF to '%s': %v", w.Name, err)
			}
			fmt.Fprintf(e.stdout, "sent EOF to %s\n", w.Name)
			return nil
		},
	}
}

func attachCommand() *cli.Command {
	return &cli.Command{
		Name:      "attach",
		Usage:     "open a worker's tmux window in this terminal",
		ArgsUsage: "NAME",
		Description: `Attaches this terminal to the worker's window on swarm's private tmux server (or switches to
it when this terminal is already a client of that server). Detach with the tmux prefix, then d.

Examples:
   swarm attach w1`,
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return fail("usage: swarm attach NAME")
			}
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			w, _, err := e.loadWorker(c.Args().First())
			if err != nil {
				return err
			}
			if w.Tmux == nil {
				return fail("worker '%s' is not a tmux worker; use 'swarm logs %s --follow'", w.Name, w.Name)
			}
			if _, err := e.tm.Pane(w.Tmux.PaneID); err != nil {
				return fail("worker '%s' has no tmux window any more", w.Name)
			}
			bin, err := lookTmux(e)
			if err != nil {
				return err
			}
			if e.tm.InsideServer() {
				if err := e.tm.SwitchClient(w.Tmux.PaneID); err != nil {
					return fail("cannot switch to '%s': %v", w.Name, err)
				}
				return nil
			}
			if !isTerminal(os.Stdin) {
				return fail("attach needs a terminal; use 'swarm peek %s' or 'swarm logs %s --follow' instead", w.Name, w.Name)
			}
			argv := append([]string{bin}, e.tm.AttachArgs(w.Tmux.PaneID)...)
			envv := tmux.AttachEnv(os.Environ())
			return syscall.Exec(bin, argv, envv)
		},
	}
}

func lookTmux(e *env) (string, error) {
	bin, err := exec.LookPath(e.tm.Bin())
	if err != nil {
		return "", fail("tmux is not installed")
	}
	return bin, nil
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func logsCommand() *cli.Command {
	return &cli.Command{
		Name:      "logs",
		Usage:     "print a worker's output (pane content or log files)",
		ArgsUsage: "NAME",
		Description: `Prints the worker's visible screen (tmux) or its stdout log (process worker).

Examples:
   swarm logs w1
   swarm logs w1 --history --lines 200
   swarm logs w1 --follow
   swarm logs build --stderr`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "history", Usage: "include the whole scrollback (tmux)"},
			&cli.IntFlag{Name: "lines", Aliases: []string{"n"}, Usage: "only the last K lines (0: all)"},
			&cli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "keep printing new output until the worker stops"},
			&cli.BoolFlag{Name: "stderr", Usage: "the stderr log instead of stdout (process worker)"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return fail("usage: swarm logs NAME")
			}
			if c.Int("lines") < 0 {
				return fail("--lines must not be negative")
			}
			e, err := openEnv(c)
			if err != nil {
				return err
			}
			w, _, err := e.loadWorker(c.Args().First())
			if err != nil {
				return err
			}
			stream := "stdout"
			if c.Bool("stderr") {
				if w.Tmux != nil {
					return fail("--stderr is for process workers; a tmux pane shows both streams")
				}
				stream = "stderr"
			}
			history := 0
			if c.Bool("history") || c.Bool("follow") {
				history = -1
			}
			if c.Bool("follow") && w.Tmux == nil {
				return followFile(e, w, stream, c.Int("lines"))
			}
			lines, err := screenLines(e, w, history, stream)
			if err != nil {
				return err
			}
			lines = lastN(lines, c.Int("lines"))
			for _, l := range lines {
				fmt.Fprintln(e.stdout, l)
			}
			if c.Bool("follow") {
				return followPane(e, w, len(lines), history)
			}
			return nil
		},
	}
}

// followPane prints lines as they are added to the pane. A line is printed once a later line
// exists (the last line may still be being typed), and everything left when the pane dies.
func followPane(e *env, w *state.Worker, _ int, history int) error {
	printed := 0
	first := true
	for {
		out, err := e.tm.Capture(w.Tmux.PaneID, history)
		if err != nil {
			return nil
		}
		lines := trimBlankTail(splitLines(out))
		p, perr := e.tm.Pane(w.Tmux.PaneID)
		dead := perr != nil || p.Dead
		if first {
			// What was already on screen has been printed by the caller.
			printed = len(lines)
			first = false
		}
		limit := len(lines) - 1
		if dead {
			limit = len(lines)
		}
		if printed > len(lines) {
			printed = len(lines)
		}
		for ; printed < limit; printed++ {
			fmt.Fprintln(e.stdout, lines[printed])
		}
		if dead {
			return nil
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// followFile prints a process worker's log as it grows, until the worker stops.
func followFile(e *env, w *state.Worker, stream string, n int) error {
	path := e.dir.LogPath(w.Name, stream)
	f, err := os.Open(path)
	if err != nil {
		return fail("no log for worker '%s': %v", w.Name, err)
	}
	defer f.Close()
	data, _ := io.ReadAll(f)
	lines := lastN(splitLines(string(data)), n)
	for _, l := range lines {
		fmt.Fprintln(e.stdout, stripansi.Strip(l))
	}
	r := bufio.NewReader(f)
	var partial bytes.Buffer
	for {
		chunk, err := r.ReadBytes('\n')
		partial.Write(chunk)
		if err == nil {
			fmt.Fprint(e.stdout, stripansi.Strip(partial.String()))
			partial.Reset()
			continue
		}
		cur, _, lerr := e.loadWorker(w.Name)
		if lerr != nil || cur.Status != state.StatusRunning {
			// Drain what the worker wrote before it ended.
			rest, _ := io.ReadAll(r)
			partial.Write(rest)
			if partial.Len() > 0 {
				s := stripansi.Strip(partial.String())
				if !strings.HasSuffix(s, "\n") {
					s += "\n"
				}
				fmt.Fprint(e.stdout, s)
			}
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
}
