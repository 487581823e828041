package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Runner runs one tmux client process. argv is the whole command line, the binary first;
// stdin is nil when the call reads nothing. A client that could not start or exited non-zero
// returns an error, with what it printed on stderr: tmux says there what went wrong.
type Runner interface {
	Run(argv []string, stdin []byte) (stdout, stderr string, err error)
}

// Exec runs the real tmux binary against a private server.
type Exec struct {
	SocketName string
	ConfigPath string // -f file; used only when the server starts
	Binary     string // default "tmux"
	// Runner runs the tmux clients; nil runs the binary. Tests put a stub here to see the
	// exact argv of every call (see tmuxtest.Stub).
	Runner Runner
	// Timeout bounds every tmux client; zero is CallTimeout().
	Timeout time.Duration
}

// Once a server has not answered, calls to it fail at once for one timeout more, so that a
// command making many calls learns it once instead of waiting for each, and a long-lived
// caller asks again after that. Kept by socket: an Exec is copied to reach another server.
var (
	quietMu    sync.Mutex
	quietUntil = map[string]time.Time{}
)

// Socket returns the -L socket name.
func (t *Exec) Socket() string { return t.SocketName }

// Bin returns the tmux binary used.
func (t *Exec) Bin() string { return t.bin() }

func (t *Exec) base() []string {
	// No socket name is the user's default server: only a worker recorded without one (by the
	// Python swarm) is reached there; swarm itself always names its private server.
	var args []string
	if t.SocketName != "" {
		args = append(args, "-L", t.SocketName)
	}
	if t.ConfigPath != "" {
		args = append(args, "-f", t.ConfigPath)
	}
	return args
}

func (t *Exec) bin() string {
	if t.Binary != "" {
		return t.Binary
	}
	return "tmux"
}

// binaryRunner starts the tmux binary.
type binaryRunner struct{}

func (binaryRunner) Run(argv []string, stdin []byte) (string, string, error) {
	return binaryRunner{}.RunWithin(argv, stdin, CallTimeout())
}

// RunWithin runs the client and kills it when it has not finished by timeout: a server that is
// stopped or wedged never answers, and its clients would wait for it forever.
func (binaryRunner) RunWithin(argv []string, stdin []byte, timeout time.Duration) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// A server the client started keeps no copy of its output pipes, but anything else that
	// does must not hold the call past its deadline.
	cmd.WaitDelay = time.Second
	cmd.Env = childEnv()
	// A fixed cwd keeps a server started here from pinning a directory the user may delete.
	cmd.Dir = "/"
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	err := cmd.Run()
	if err != nil && ctx.Err() != nil {
		// Killed at the deadline; an answer that came just in time still counts.
		err = errTimedOut
	}
	return out.String(), errb.String(), err
}

// errTimedOut is a client killed at its deadline, before callSeq names the server.
var errTimedOut = errors.New("tmux client timed out")

// timedRunner is a Runner that can be given the deadline itself.
type timedRunner interface {
	RunWithin(argv []string, stdin []byte, timeout time.Duration) (string, string, error)
}

// call runs one tmux command on the private server and returns what the client printed.
func (t *Exec) call(stdin []byte, args ...string) (stdout, stderr string, err error) {
	return t.callSeq(stdin, args)
}

// callSeq runs tmux commands one after the other in one client, as tmux's "a ; b" does: one
// process instead of several. tmux stops at the first command that fails.
func (t *Exec) callSeq(stdin []byte, cmds ...[]string) (stdout, stderr string, err error) {
	if t.quiet() {
		return "", "", t.notAnswering()
	}
	r := t.Runner
	if r == nil {
		r = binaryRunner{}
	}
	argv := append([]string{t.bin()}, t.base()...)
	for i, cmd := range cmds {
		if i > 0 {
			argv = append(argv, ";")
		}
		for _, a := range cmd {
			argv = append(argv, literalArg(a))
		}
	}
	if tr, ok := r.(timedRunner); ok {
		stdout, stderr, err = tr.RunWithin(argv, stdin, t.timeout())
	} else {
		stdout, stderr, err = r.Run(argv, stdin)
	}
	if errors.Is(err, errTimedOut) {
		quietMu.Lock()
		quietUntil[t.SocketName] = time.Now().Add(t.timeout())
		quietMu.Unlock()
		err = t.notAnswering()
	}
	return stdout, stderr, err
}

func (t *Exec) timeout() time.Duration {
	if t.Timeout > 0 {
		return t.Timeout
	}
	return CallTimeout()
}

func (t *Exec) quiet() bool {
	quietMu.Lock()
	defer quietMu.Unlock()
	return time.Now().Before(quietUntil[t.SocketName])
}

func (t *Exec) notAnswering() error {
	return &NotAnsweringError{Socket: t.SocketName}
}

// literalArg keeps an argument whole: tmux reads an argument that ends in ";" as the end of a
// command (so "find . -exec rm {} ;" or "sh -c 'make;'" would be cut short), and one that
// ends in "\;" as a literal ";".
func literalArg(a string) string {
	if strings.HasSuffix(a, ";") {
		return a[:len(a)-1] + `\;`
	}
	return a
}

// run is call with tmux's failures turned into the errors callers act on.
func (t *Exec) run(stdin []byte, args ...string) (string, error) {
	return t.runSeq(stdin, args)
}

// runSeq is callSeq with tmux's failures turned into errors, named after the last command.
func (t *Exec) runSeq(stdin []byte, cmds ...[]string) (string, error) {
	out, errOut, err := t.callSeq(stdin, cmds...)
	if err != nil {
		msg := strings.TrimSpace(errOut)
		if errors.Is(err, ErrNotAnswering) {
			return "", err
		}
		if errors.Is(err, exec.ErrNotFound) {
			return "", ErrNotInstalled
		}
		// A server whose last session just closed answers "no current target" while it exits.
		if strings.Contains(msg, "no server running") || strings.Contains(msg, "error connecting to") ||
			strings.Contains(msg, "server exited") || strings.Contains(msg, "no current target") {
			return "", ErrNoServer
		}
		if strings.Contains(msg, "can't find pane") {
			return "", ErrNoPane
		}
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("tmux %s: %s", cmds[len(cmds)-1][0], msg)
	}
	return out, nil
}
