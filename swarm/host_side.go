package swarm

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/ralph/proc"
	"github.com/swarm-dev/swarm/ralph/sandbox"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/swarm/remote"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// The host's side of a remote command: hidden commands that another machine's swarm runs
// here over SSH.

func hostHelloCommand() *cli.Command {
	return &cli.Command{
		Name: "__hello", Hidden: true, Usage: "say who this swarm is, as JSON (for another machine's swarm)",
		Action: func(c *cli.Context) error {
			return withEnv(c, nil, func(e *env) error { return printJSON(e, gatherHello(e)) })
		},
	}
}

// gatherHello is what this machine's swarm says of itself to another's.
func gatherHello(e *env) remote.Hello {
	h := remote.Hello{Version: Version, OS: runtime.GOOS, Arch: runtime.GOARCH, StateDir: e.Dir().Root, CPUs: runtime.NumCPU()}
	h.Load, h.MemAvailable = proc.Machine()
	if list, _, err := e.LoadAll(); err == nil {
		for _, w := range list {
			h.Workers++
			if running(w) {
				h.Running++
			}
			switch workerState(e, w).word {
			case wordWaiting:
				h.Parked++
				h.Loops++
			case wordRunning, wordBlocked, wordPaused:
				if w.Metadata["ralph"] == true {
					h.Loops++
				}
			}
		}
	}
	home, _ := os.UserHomeDir()
	if who, err := git.Identity(home); err != nil {
		h.CommitProblem = oneLineOf(err)
	} else {
		h.Committer = who
	}
	h.Sandbox, h.SandboxProblem = sandbox.KindBwrap, sandbox.Probe()
	if h.SandboxProblem != "" {
		h.Sandbox = "none"
	}
	h.Regent = "not running"
	if pid := regent.NewClient(e.Dir()).PID(); pid > 0 {
		h.Regent = fmt.Sprintf("running (pid %d)", pid)
	}
	return h
}

func hostRunCommand() *cli.Command {
	return &cli.Command{
		Name: "__run", Hidden: true, SkipFlagParsing: true,
		Usage:     "run a command for another machine's swarm, ended when its connection goes",
		ArgsUsage: "[--keep-stdin] [--repo URL --subdir DIR] -- COMMAND...",
		Action: func(c *cli.Context) error {
			o, words, err := hostRunArgs(c.Args().Slice())
			if err != nil {
				return err
			}
			if o.repo != "" {
				root, err := stateRoot(c)
				if err != nil {
					return err
				}
				if err := chdirWorkspace(root, o.repo, o.subdir, false); err != nil {
					return err
				}
			}
			if !o.keepStdin {
				go endWithConnection(os.Stdin)
			}
			return exitCode(Run(append([]string{"swarm"}, words...), c.App.Writer, c.App.ErrWriter))
		},
	}
}

// endWithConnection ends this process when in reaches its end: the standard input of a
// remote command is a pipe the other machine's swarm holds open while it waits, so its end
// means that swarm (or the connection) is gone, and no one is left to read the output.
func endWithConnection(in io.Reader) {
	_, _ = io.Copy(io.Discard, in)
	os.Exit(ExitInterrupted)
}

type hostRunOptions struct {
	keepStdin    bool
	repo, subdir string
}

func hostRunArgs(args []string) (hostRunOptions, []string, error) {
	var o hostRunOptions
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			return o, args[i+1:], nil
		case a == "--keep-stdin":
			o.keepStdin = true
		case (a == "--repo" || a == "--subdir") && i+1 < len(args):
			if a == "--repo" {
				o.repo = args[i+1]
			} else {
				o.subdir = args[i+1]
			}
			i++
		default:
			return o, nil, fail("host __run: unexpected '%s'", a)
		}
	}
	return o, nil, fail("host __run: no command")
}

// chdirWorkspace moves into dir sub of this host's clone of repo (made or fetched first when
// fetch).
func chdirWorkspace(root, repo, sub string, fetch bool) error {
	ws, err := remote.EnsureWorkspace(root, repo, fetch)
	if err != nil {
		return fail("%w", err)
	}
	dir, err := remote.InWorkspace(ws, sub)
	if err != nil {
		return fail("%w", err)
	}
	return os.Chdir(dir)
}

func hostSpawnCommand() *cli.Command {
	return &cli.Command{
		Name: "__spawn", Hidden: true, Usage: "start a worker sent by another machine's swarm (a bundle on standard input)",
		Action: func(c *cli.Context) error {
			root, err := stateRoot(c)
			if err != nil {
				return err
			}
			b, err := readBundle(os.Stdin)
			if err != nil {
				return err
			}
			if b.ID != "" {
				if err := remote.BeginSpawn(root, b.ID, b.Worker); err != nil {
					return fail("%w", err)
				}
			}
			// A sender whose connection drops while the answer is printed still learns how
			// the spawn went: a write to the closed connection fails (EPIPE) instead of
			// ending this process before the receipt is written. Caught, not ignored, so
			// the processes it starts get SIGPIPE as usual.
			signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
			said := remote.NewBounded(64<<10, nil)
			code := spawnSent(root, b, c.App.Writer, io.MultiWriter(said, c.App.ErrWriter))
			if b.ID != "" {
				_ = remote.EndSpawn(root, b.ID, code == 0, lastErrorLine(string(said.Bytes())))
			}
			return exitCode(code)
		},
	}
}

// spawnSent starts the worker of bundle b: its files written, in the host's clone of its
// project; what it says goes to stdout and stderr, and its exit code is returned.
func spawnSent(root string, b remote.Bundle, stdout, stderr io.Writer) int {
	sent, err := b.WriteFiles(root)
	if err != nil {
		fmt.Fprintf(stderr, "swarm: error: cannot write the files sent with %s: %v\n", b.Worker, err)
		return ExitError
	}
	if b.Repo != "" {
		if err := chdirWorkspace(root, b.Repo, b.Subdir, true); err != nil {
			_, msg, _ := codeOf(err)
			fmt.Fprintf(stderr, "swarm: error: %s\n", msg)
			return ExitError
		}
	}
	return Run(append([]string{"swarm"}, b.ArgsIn(sent)...), stdout, stderr)
}

// lastErrorLine is the last line of what a command said on its standard error, without
// swarm's prefix.
func lastErrorLine(said string) string {
	lines := strings.Split(strings.TrimSpace(said), "\n")
	return strings.TrimPrefix(lines[len(lines)-1], "swarm: error: ")
}

func hostSpawnedCommand() *cli.Command {
	return &cli.Command{
		Name: "__spawned", Hidden: true, ArgsUsage: "ID",
		Usage: "what became of a spawn sent by another machine's swarm, as JSON (a spawn never received is given up)",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("swarm host __spawned ID")
			}
			return withEnv(c, nil, func(e *env) error {
				r, err := remote.AskSpawn(e.Dir().Root, c.Args().First())
				if err != nil {
					return fail("%w", err)
				}
				return printJSON(e, r)
			})
		},
	}
}

func hostPutCommand() *cli.Command {
	return &cli.Command{
		Name: "__put", Hidden: true, Usage: "replace the files sent with a worker (a bundle on standard input)",
		Action: func(c *cli.Context) error {
			_, _, _, err := receiveBundle(c)
			return err
		},
	}
}

// receiveBundle reads the bundle on standard input and writes the files it sends into the
// worker's directory of sent files, which it returns with this machine's state directory.
func receiveBundle(c *cli.Context) (root string, b remote.Bundle, sent string, err error) {
	if root, err = stateRoot(c); err != nil {
		return "", b, "", err
	}
	if b, err = readBundle(os.Stdin); err != nil {
		return "", b, "", err
	}
	if sent, err = b.WriteFiles(root); err != nil {
		return "", b, "", fail("cannot write the files sent with %s: %w", b.Worker, err)
	}
	return root, b, sent, nil
}

func readBundle(in io.Reader) (remote.Bundle, error) {
	var b remote.Bundle
	if err := json.NewDecoder(in).Decode(&b); err != nil {
		return b, fail("cannot read what was sent: %v", err)
	}
	if err := worker.ValidateName(b.Worker); err != nil {
		return b, fail("%w", err)
	}
	return b, nil
}
