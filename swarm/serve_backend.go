package swarm

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/user"
	"strings"
	"sync"
	"time"

	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/remote"
	"github.com/swarm-dev/swarm/swarm/report"
	"github.com/swarm-dev/swarm/swarm/serve"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// What `swarm serve` reads and does (serve.Backend): this machine's workers read by the same
// functions as the commands' --format json, a host's (NAME@HOST) and every action by
// running this swarm's own command line, which keeps the hosts' routing and each command's
// own checks.

// serveBackend is serve.Backend on a state directory.
type serveBackend struct {
	e *env // the command's own: its state directory
	// open makes an environment for one request: a Host keeps caches that are not shared
	// between goroutines, so each request reads through its own, and a read that waits on a
	// slow host holds up no other. Without it (a test's backend) requests take turns on e.
	open func() (*env, error)
	mu   sync.Mutex
	cmd  swarmCommand
}

// requestEnv opens the state directory root for one request, its warnings dropped (what a
// read warns of, a host that did not answer, is in its answer).
func requestEnv(root, socket string) func() (*env, error) {
	return func() (*env, error) {
		h, err := worker.OpenLocal(root, socket, io.Discard)
		if err != nil {
			return nil, err
		}
		return &env{Machine: h, stdout: io.Discard, stderr: io.Discard}, nil
	}
}

// env is an environment for one request, and what lets go of it once the request is done.
func (b *serveBackend) env() (*env, func(), error) {
	if b.open == nil {
		b.mu.Lock()
		return b.e, b.mu.Unlock, nil
	}
	e, err := b.open()
	if err != nil {
		return nil, nil, httpError(err)
	}
	return e, func() {}, nil
}

var _ serve.Backend = (*serveBackend)(nil)

// hostsTimeout is how long each host has to answer a read of the fleet.
const hostsTimeout = 5 * time.Second

func (b *serveBackend) Info(context.Context) (serve.Info, error) {
	hosts := []string{remote.LocalName}
	for _, h := range remote.RegistryOf(b.e.Dir().Root).All(nil) {
		hosts = append(hosts, h.Name)
	}
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	return serve.Info{Version: Version, Hosts: hosts, User: name}, nil
}

func (b *serveBackend) Workers(context.Context) (any, error) {
	e, done, err := b.env()
	if err != nil {
		return nil, err
	}
	defer done()
	list, err := lsValue(e, lsOptions{Status: "all", Timeout: hostsTimeout})
	return list, httpError(err)
}

func (b *serveBackend) Worker(ctx context.Context, name string) (any, error) {
	if onAHost(name) {
		// status exits 1 for a worker that does not run; what it printed is the answer.
		return b.cmd.json(ctx, true, "status", name, "--format", "json")
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
	return statusValue(w, workerLoop(e, w)), nil
}

func (b *serveBackend) Loop(ctx context.Context, name string) (any, error) {
	if onAHost(name) {
		raw, err := b.cmd.json(ctx, false, "ralph", "status", name, "--format", "json")
		if err != nil {
			return nil, err
		}
		return unsecret(raw)
	}
	if err := checkWorkerName(name); err != nil {
		return nil, err
	}
	e, done, err := b.env()
	if err != nil {
		return nil, err
	}
	v, _, err := loopValue(e, name)
	done()
	if err != nil {
		return nil, httpError(err)
	}
	return unsecret(v)
}

func (b *serveBackend) Iterations(ctx context.Context, name string) (any, error) {
	if onAHost(name) {
		return b.cmd.jsonLines(ctx, "ralph", "logs", name, "--format", "json")
	}
	if err := checkWorkerName(name); err != nil {
		return nil, err
	}
	e, done, err := b.env()
	if err != nil {
		return nil, err
	}
	defer done()
	records, err := iterationRecords(e, name)
	return records, httpError(err)
}

func (b *serveBackend) Report(_ context.Context, since string) (any, error) {
	o := reportOptions{Since: since, Format: "json", Timeout: 2 * hostsTimeout, Now: time.Now()}
	if o.Since == "" {
		o.Since = "24h"
	}
	if _, err := report.ParseSince(o.Since, o.Now, time.Local); err != nil {
		return nil, serve.Errorf(http.StatusBadRequest, "%v", err)
	}
	e, done, err := b.env()
	if err != nil {
		return nil, err
	}
	defer done()
	r, err := reportValue(e, o)
	return r, httpError(err)
}

func (b *serveBackend) Events(ctx context.Context, q serve.EventsQuery) (any, error) {
	o := eventsOptions{Since: q.After, Workers: q.Workers, Kinds: q.Kinds, Format: "json", Timeout: hostsTimeout, Now: time.Now()}
	if q.Since != "" {
		o.Since = append(o.Since, q.Since)
	}
	if err := o.check(); err != nil {
		_, msg, _ := codeOf(err)
		return nil, serve.Errorf(http.StatusBadRequest, "%s", strings.ReplaceAll(msg, "--since", "after/since"))
	}
	e, done, err := b.env()
	if err != nil {
		return nil, err
	}
	defer done()
	v, err := eventsValue(ctx, e, o)
	return v, httpError(err)
}

// load is this machine's worker name.
func load(e *env, name string) (*state.Worker, error) {
	if err := checkWorkerName(name); err != nil {
		return nil, err
	}
	w, _, err := e.Load(name)
	return w, httpError(err)
}

// onAHost says whether name is NAME@HOST.
func onAHost(name string) bool { return strings.Contains(name, "@") }

// checkWorkerName checks a name by swarm's own rules: NAME, or NAME@HOST.
func checkWorkerName(name string) error {
	n, host, remote := strings.Cut(name, "@")
	err := worker.ValidateName(n)
	if err == nil && remote {
		err = checkHostName(host)
	}
	if err != nil {
		return serve.Errorf(http.StatusBadRequest, "%v", err)
	}
	return nil
}

func checkHostName(h string) error { return remote.CheckName(h) }

// httpError is a command's error with the HTTP status it answers with: no such worker 404,
// not a loop 404, anything else 500.
func httpError(err error) error {
	if err == nil {
		return nil
	}
	n, msg, _ := codeOf(err)
	switch {
	case n == ExitNotFound, strings.Contains(msg, "is not a ralph worker"):
		return serve.Errorf(http.StatusNotFound, "%s", msg)
	}
	return serve.Errorf(http.StatusInternalServerError, "%s", msg)
}

// secretKeys are the settings whose values may be secrets (a webhook's URL holds its key):
// served as "***", as ls serves --env's values.
var secretKeys = map[string]bool{"webhook": true}

// unsecret is v as JSON with every secret's value "***".
func unsecret(v any) (json.RawMessage, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var tree any
	if err := json.Unmarshal(data, &tree); err != nil {
		return nil, serve.Errorf(http.StatusBadGateway, "the answer is not JSON")
	}
	return json.Marshal(hideSecrets(tree))
}

func hideSecrets(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if s, ok := x.(string); ok && secretKeys[k] && s != "" {
				t[k] = "***"
			} else {
				t[k] = hideSecrets(x)
			}
		}
	case []any:
		for i := range t {
			t[i] = hideSecrets(t[i])
		}
	}
	return v
}

// screenValue is a peek --format json element of this machine's worker w, its last n lines,
// and with html its colours as HTML.
func screenValue(e *env, w *state.Worker, n int, html bool) (screenJSON, error) {
	lines, err := screenLines(e, w, n, "stdout")
	if err != nil {
		return screenJSON{}, err
	}
	v := screenJSON{peekedScreen: peekedScreen{Name: w.Name, Status: string(w.Status), Time: stamp(time.Now()),
		Lines: append([]string{}, screen.LastN(lines, n)...)}}
	if !html {
		return v, nil
	}
	v.HTML = serve.ScreenHTML(strings.Join(v.Lines, "\n"))
	if c, ok := e.TmuxFor(w).(escapedCapture); ok && w.Tmux != nil && w.Status == state.StatusRunning {
		if out, err := c.CaptureEscaped(w.Tmux.PaneID, 0); err == nil {
			v.HTML = serve.ScreenHTML(strings.Join(screen.LastN(worker.PaneOutput(out), n), "\n"))
		}
	}
	return v, nil
}

// escapedCapture is a tmux client that captures a screen with its colours.
type escapedCapture interface {
	CaptureEscaped(paneID string, historyLines int) (string, error)
}

// screenJSON is a screen as the API serves it: peek's, and its colours as HTML on request.
type screenJSON struct {
	peekedScreen
	HTML string `json:"html,omitempty"`
}
