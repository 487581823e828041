package swarm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/swarm-dev/swarm/swarm/remote"
	"github.com/urfave/cli/v2"
)

// rootOf is the state directory a command line names: its --swarm-dir, else SWARM_DIR, else
// ~/.swarm.
func rootOf(global []string) (string, error) {
	for i := 0; i < len(global); i++ {
		g := global[i]
		if v, ok := strings.CutPrefix(g, "--swarm-dir="); ok {
			return v, nil
		}
		if g == "--swarm-dir" && i+1 < len(global) {
			return global[i+1], nil
		}
	}
	return rootOrDefault(os.Getenv("SWARM_DIR"))
}

// connFor is the way to the host name from the state directory of the command line c, and
// that directory.
func connFor(c *cli.Context, name string) (string, *remote.Conn, error) {
	root, err := stateRoot(c)
	if err != nil {
		return "", nil, err
	}
	conn, err := connTo(root, name)
	return root, conn, err
}

// connTo is the way to the host name of the state directory at root.
func connTo(root, name string) (*remote.Conn, error) {
	h, err := remote.RegistryOf(root).Get(name)
	if err != nil {
		if errors.Is(err, remote.ErrNoHost) {
			return nil, wrapped(ExitNotFound, "%w", err)
		}
		return nil, fail("%w", err)
	}
	conn, err := remote.Open(root, h)
	if err != nil {
		return nil, fail("%w", err)
	}
	return conn, nil
}

// runRouted runs a command line on its host and returns the exit code to exit with.
func runRouted(line remoteLine, stdout, stderr io.Writer) int {
	report := func(err error) int {
		n, msg, silent := codeOf(err)
		if !silent && msg != "" {
			fmt.Fprintf(stderr, "swarm: error: %s\n", msg)
		}
		return n
	}
	root, err := rootOf(line.global)
	if err != nil {
		return report(err)
	}
	conn, err := connTo(root, line.host)
	if err != nil {
		return report(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	words := append(append([]string{}, line.path...), line.args...)
	if strings.Join(line.path, " ") == "ralph resume" && len(line.names) == 1 {
		// A loop resumed goes on with the prompt as it is here now.
		if _, err := resendFiles(ctx, root, conn, line.names[0]); err != nil {
			return report(fail("%w", err))
		}
	}
	var code int
	if line.path[0] == "attach" {
		code, err = attachRemote(ctx, conn, words, stdout, stderr)
	} else {
		code, err = runEscaped(ctx, conn, line, words, stdout, stderr)
	}
	if ctx.Err() != nil {
		return ExitInterrupted
	}
	if err != nil {
		return report(fail("%w", err))
	}
	return code
}

// hostRun is the host's command line for words: run under `host __run`, which ends it when
// this side goes away, and, for the commands on a project, in the host's clone of it.
func hostRun(line remoteLine, words []string) []string {
	run := []string{"host", "__run"}
	if stdinFor(line) != nil {
		run = append(run, "--keep-stdin")
	}
	if onProject(line) {
		if repo, sub, err := projectOf("", ""); err == nil {
			run = append(run, "--repo", repo, "--subdir", sub)
		}
	}
	return append(append(run, "--"), words...)
}

// onProject says whether a command works on the project of the current directory (rather
// than on workers) and was not given one with --dir.
func onProject(line remoteLine) bool {
	switch line.path[0] {
	case "inbox", "land", "query":
	default:
		return false
	}
	for _, a := range line.args {
		if a == "--dir" || strings.HasPrefix(a, "--dir=") {
			return false
		}
	}
	return true
}

// stdinFor is the standard input a remote command reads: `send NAME -` reads this one's.
func stdinFor(line remoteLine) io.Reader {
	if line.path[0] == "send" && len(line.args) > 0 && line.args[len(line.args)-1] == "-" {
		return os.Stdin
	}
	return nil
}

// attachRemote attaches to a remote worker's window through a terminal on the host.
func attachRemote(ctx context.Context, conn *remote.Conn, words []string, stdout, stderr io.Writer) (int, error) {
	tty := isTerminal(os.Stdin) && isTerminal(os.Stdout)
	return conn.RunTerminal(ctx, tty, words, remote.Streams{Stdin: os.Stdin, Stdout: stdout, Stderr: stderr})
}

// runEscaped runs a command line on its host with what it prints escaped (hostText).
func runEscaped(ctx context.Context, conn *remote.Conn, line remoteLine, words []string, stdout, stderr io.Writer) (int, error) {
	out, errs := escapeTo(stdout), escapeTo(stderr)
	defer out.Flush()
	defer errs.Flush()
	if line.path[0] == "status" {
		return statusRemote(ctx, conn, line, words, out, errs)
	}
	return conn.Run(ctx, hostRun(line, words), remote.Streams{Stdin: stdinFor(line), Stdout: out, Stderr: errs})
}

// statusRemote is `status NAME@HOST`: the host's answer with the host in it, "w1@h1: running
// (...)" or the JSON object with "host"; an answer past remote.MaxReply is refused.
func statusRemote(ctx context.Context, conn *remote.Conn, line remoteLine, words []string, stdout, stderr io.Writer) (int, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	large := &remote.TooLargeError{Host: conn.Host.Name, Max: remote.MaxReply}
	out := remote.NewBounded(remote.MaxReply, func() { cancel(large) })
	code, err := conn.Run(ctx, hostRun(line, words), remote.Streams{Stdout: out, Stderr: stderr})
	if out.Full() {
		return code, large
	}
	if err != nil {
		return code, err
	}
	text := out.Bytes()
	if trimmed := bytes.TrimSpace(text); bytes.HasPrefix(trimmed, []byte("{")) {
		text = withHost(text, conn.Host.Name)
	} else if i := bytes.IndexByte(text, ':'); i > 0 && !bytes.ContainsAny(text[:i], " \n") {
		text = append(append(append([]byte{}, text[:i]...), []byte("@"+conn.Host.Name)...), text[i:]...)
	}
	_, _ = stdout.Write(text)
	return code, nil
}

// withHost puts "host": NAME first in a JSON object printed indented.
func withHost(obj []byte, host string) []byte {
	i := bytes.IndexByte(obj, '{')
	field := fmt.Sprintf("\n  %q: %q,", "host", host)
	return append(append(append([]byte{}, obj[:i+1]...), field...), obj[i+1:]...)
}
