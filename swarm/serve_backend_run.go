package swarm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/swarm/remote"
	"github.com/swarm-dev/swarm/swarm/serve"
)

// swarmCommand runs this swarm's own command line on the server's state directory.
type swarmCommand struct {
	exe    string
	global []string // --swarm-dir ROOT, --tmux-socket NAME when given
}

// Bounds of a command the server runs: what it says, and how long it may take.
const (
	maxSaid     = 256 << 10
	actionLimit = 2 * time.Minute
	landLimit   = 30 * time.Minute // landing runs the project's tests
)

// run runs swarm with args within limit; said is what it printed (stdout, and stderr after
// it), bounded.
func (c swarmCommand) run(ctx context.Context, limit time.Duration, args ...string) (stdout, stderr []byte, code int, err error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.exe, append(append([]string{}, c.global...), args...)...)
	// Its own process group: a kill under way is seen through if the server is stopped.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
	out, errs := remote.NewBounded(maxSaid, nil), remote.NewBounded(maxSaid, nil)
	cmd.Stdout, cmd.Stderr = out, errs
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ctx.Err() == nil {
		return out.Bytes(), errs.Bytes(), ee.ExitCode(), nil
	}
	if err != nil {
		return nil, nil, -1, serve.Errorf(http.StatusInternalServerError, "swarm %s did not run: %v", args[0], err)
	}
	return out.Bytes(), errs.Bytes(), 0, nil
}

// commandFailed is a command's exit code and what it said as the HTTP error it answers with.
func commandFailed(args []string, code int, stderr []byte) error {
	msg := lastLine(string(stderr))
	if strings.TrimSpace(msg) == "" {
		msg = "swarm " + args[0] + " failed (exit " + strconv.Itoa(code) + ")"
	}
	switch {
	case code == ExitNotFound:
		return serve.Errorf(http.StatusNotFound, "%s", msg)
	case strings.Contains(msg, "did not answer") || strings.Contains(msg, "cannot reach") || strings.HasPrefix(msg, "host "):
		return serve.Errorf(http.StatusBadGateway, "%s", msg)
	}
	return serve.Errorf(http.StatusBadRequest, "%s", msg)
}

// json runs a read that prints one JSON value; exit 1 is an answer too with anyExit (status
// of a worker that does not run).
func (c swarmCommand) json(ctx context.Context, anyExit bool, args ...string) (json.RawMessage, error) {
	out, errs, code, err := c.run(ctx, actionLimit, args...)
	if err != nil {
		return nil, err
	}
	if code != 0 && !(anyExit && code == ExitError && json.Valid(out)) {
		return nil, commandFailed(args, code, errs)
	}
	if !json.Valid(out) {
		return nil, serve.Errorf(http.StatusBadGateway, "swarm %s answered no JSON", args[0])
	}
	return json.RawMessage(bytes.TrimSpace(out)), nil
}

// jsonLines runs a read that prints a JSON value a line, and gives them as an array.
func (c swarmCommand) jsonLines(ctx context.Context, args ...string) ([]json.RawMessage, error) {
	out, errs, code, err := c.run(ctx, actionLimit, args...)
	if err != nil {
		return nil, err
	}
	if code != 0 {
		return nil, commandFailed(args, code, errs)
	}
	list := []json.RawMessage{}
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" && json.Valid([]byte(l)) {
			list = append(list, json.RawMessage(l))
		}
	}
	return list, nil
}

// act runs an action and returns what it said.
func (c swarmCommand) act(ctx context.Context, limit time.Duration, args ...string) (string, error) {
	out, errs, code, err := c.run(ctx, limit, args...)
	if err != nil {
		return "", err
	}
	if code != 0 {
		return "", commandFailed(args, code, errs)
	}
	return strings.TrimSpace(string(out) + string(errs)), nil
}

func (b *serveBackend) Pause(ctx context.Context, name string) (string, error) {
	return b.action(ctx, name, actionLimit, "ralph", "pause", name)
}

func (b *serveBackend) Resume(ctx context.Context, name string) (string, error) {
	return b.action(ctx, name, actionLimit, "ralph", "resume", name)
}

func (b *serveBackend) Kill(ctx context.Context, name string) (string, error) {
	return b.action(ctx, name, actionLimit, "kill", name)
}

func (b *serveBackend) Land(ctx context.Context, name string) (string, error) {
	return b.action(ctx, name, landLimit, "land", name)
}

func (b *serveBackend) Send(ctx context.Context, name, line string) (string, error) {
	return b.action(ctx, name, actionLimit, "send", name, "--", line)
}

func (b *serveBackend) Answer(ctx context.Context, name, answer, message string) (string, error) {
	args := []string{"answer", name, answer, "--by", "web"}
	if message != "" {
		args = append(args, "--message", message)
	}
	return b.action(ctx, name, actionLimit, args...)
}

// action runs an action's command line on a worker whose name was checked.
func (b *serveBackend) action(ctx context.Context, name string, limit time.Duration, args ...string) (string, error) {
	if err := checkWorkerName(name); err != nil {
		return "", err
	}
	return b.cmd.act(ctx, limit, args...)
}

func (b *serveBackend) Screen(ctx context.Context, name string, lines int, html bool) (any, error) {
	if err := checkWorkerName(name); err != nil {
		return nil, err
	}
	if onAHost(name) {
		return b.hostScreen(ctx, name, lines, html)
	}
	e, done, err := b.env()
	if err != nil {
		return nil, err
	}
	defer done()
	w, err := load(e, name)
	if err != nil {
		return nil, err
	}
	v, err := screenValue(e, w, lines, html)
	return v, httpError(err)
}

// hostScreen is a host's worker's screen, its peek's; its colours are not asked for (peek
// gives the text alone), so its HTML is the text escaped.
func (b *serveBackend) hostScreen(ctx context.Context, name string, lines int, html bool) (any, error) {
	raw, err := b.cmd.json(ctx, false, "peek", name, "-n", strconv.Itoa(lines), "--format", "json")
	if err != nil {
		return nil, err
	}
	var screens []screenJSON
	if err := json.Unmarshal(raw, &screens); err != nil || len(screens) != 1 {
		return nil, serve.Errorf(http.StatusBadGateway, "the host's peek answered no screen")
	}
	if html {
		screens[0].HTML = serve.ScreenHTML(strings.Join(screens[0].Lines, "\n"))
	}
	return screens[0], nil
}
