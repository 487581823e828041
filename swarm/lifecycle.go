package swarm

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
)

const defaultSession = "swarm"

// spawnOptions is everything needed to start a worker; respawn and the ralph loop reuse it.
type spawnOptions struct {
	Name     string
	Tmux     bool
	Session  string
	Worktree bool
	Branch   string
	Tags     []string
	Env      map[string]string
	Cwd      string
	Argv     []string
	Metadata map[string]any
	// StartArgv, when set, is what actually runs (Argv is what the record shows and what
	// resolves as the program).
	StartArgv []string
	// ExtraEnv is added to the environment of this start only, not recorded.
	ExtraEnv []string
	// BaseEnv, when set, replaces the caller's environment (respawn reuses the original one).
	BaseEnv []string
	// ExistingWorktree reuses a worktree instead of creating one (respawn).
	ExistingWorktree *state.WorktreeInfo
}

// parseEnvFlags turns repeated --env K=V into a map, refusing anything without a key.
func parseEnvFlags(vals []string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range vals {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.ContainsAny(k, " \t\n") {
			return nil, fail("invalid env format '%s' (expected KEY=VAL)", kv)
		}
		m[k] = v
	}
	return m, nil
}

// resolveCommand finds the program the way exec would, so a typo is reported by spawn instead
// of showing up later as a dead pane.
func resolveCommand(argv0, cwd string) error {
	if strings.Contains(argv0, "/") {
		p := argv0
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		fi, err := os.Stat(p)
		if err != nil {
			return fail("command not found: %s", argv0)
		}
		if fi.IsDir() || fi.Mode()&0o111 == 0 {
			return fail("command is not executable: %s", argv0)
		}
		return nil
	}
	if _, err := exec.LookPath(argv0); err != nil {
		return fail("command not found: %s", argv0)
	}
	return nil
}

// workerEnv is the complete environment a worker starts with.
func workerEnv(base []string, overrides map[string]string, name string) []string {
	if base == nil {
		base = tmux.FilterEnv(os.Environ())
	}
	m := map[string]string{}
	var order []string
	for _, kv := range base {
		k, v, _ := strings.Cut(kv, "=")
		if _, seen := m[k]; !seen {
			order = append(order, k)
		}
		m[k] = v
	}
	set := func(k, v string) {
		if _, seen := m[k]; !seen {
			order = append(order, k)
		}
		m[k] = v
	}
	for k, v := range overrides {
		set(k, v)
	}
	set("SWARM_WORKER", name)
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, k+"="+m[k])
	}
	return tmux.FilterEnv(out)
}

// spawnWorker starts a worker and records it. It is transactional: when any step fails, what
// earlier steps created (worktree, window, process) is removed again and no record remains.
func spawnWorker(e *env, o spawnOptions) (*state.Worker, error) {
	if err := validateName(o.Name); err != nil {
		return nil, err
	}
	if len(o.Argv) == 0 {
		return nil, fail("no command provided (use -- command...)")
	}
	cwd := o.Cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fail("cannot determine current directory: %v", err)
		}
		cwd = wd
	}
	cwd, err := filepath.Abs(cwd)
	if err != nil {
		return nil, fail("invalid --cwd: %v", err)
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return nil, fail("directory not found: %s", cwd)
	}
	if o.Session == "" {
		o.Session = defaultSession
	}
	if err := validateSession(o.Session); err != nil {
		return nil, err
	}
	var w *state.Worker
	err = e.dir.UpdateWorkers(e.warnErr, func(ws *state.Workers) error {
		if ws.Get(o.Name) != nil {
			return fail("worker '%s' already exists", o.Name)
		}
		var wt *createdWorktree
		var wtInfo *state.WorktreeInfo
		runDir := cwd
		switch {
		case o.ExistingWorktree != nil:
			wtInfo = o.ExistingWorktree
			runDir = wtInfo.Path
		case o.Worktree:
			var err error
			wt, err = createWorktree(cwd, o.Name, o.Branch)
			if err != nil {
				return err
			}
			info := wt.info
			wtInfo = &info
			runDir = info.Path
		}
		undo := func() {
			if wt != nil {
				wt.undo()
			}
		}
		if err := resolveCommand(o.Argv[0], runDir); err != nil {
			undo()
			return err
		}
		envList := workerEnv(o.BaseEnv, o.Env, o.Name)
		if err := state.WriteJSON(e.dir.EnvPath(o.Name), envList); err != nil {
			undo()
			return fail("cannot save worker environment: %v", err)
		}
		w = &state.Worker{
			Name:     o.Name,
			Status:   state.StatusRunning,
			Cmd:      o.Argv,
			Started:  time.Now().UTC(),
			Cwd:      runDir,
			Env:      o.Env,
			Tags:     o.Tags,
			Worktree: wtInfo,
			Metadata: o.Metadata,
		}
		if w.Tags == nil {
			w.Tags = []string{}
		}
		if w.Metadata == nil {
			w.Metadata = map[string]any{}
		}
		// In tmux the program runs under swarm's wrapper too: tmux does not always collect the
		// exit status of a pane whose program ends quickly, and the wrapper always records it.
		startArgv := append(append(runWrapper(), "--exit-file", e.dir.ExitPath(o.Name), "--"), o.Argv...)
		if len(o.StartArgv) > 0 {
			startArgv = o.StartArgv
		}
		_ = os.Remove(e.dir.ExitPath(o.Name))
		startEnv := append(append([]string{}, envList...), o.ExtraEnv...)
		var startErr error
		if o.Tmux {
			var p tmux.Pane
			p, startErr = e.tm.NewWindow(tmux.Spec{Session: o.Session, Window: o.Name, Cwd: runDir, Env: startEnv, Argv: startArgv})
			if startErr == nil {
				w.Tmux = &state.TmuxInfo{Session: o.Session, Window: o.Name, Socket: e.tm.Socket(), PaneID: p.ID}
				w.PID = p.PID
			}
		} else {
			w.PID, startErr = startProcess(e, o.Name, runDir, startEnv, o.Argv)
			if startErr == nil {
				w.Metadata["pid_start"] = processStart(w.PID)
			}
		}
		if startErr != nil {
			os.Remove(e.dir.EnvPath(o.Name))
			undo()
			return fail("cannot start worker '%s': %v", o.Name, startErr)
		}
		ws.Put(w)
		return nil
	})
	if err != nil {
		if w != nil && (w.PID > 0 || w.Tmux != nil) && !isExitError(err, "already exists") {
			// The record could not be saved: take the started worker down again.
			stopStarted(e, w)
		}
		return nil, err
	}
	return w, nil
}

func isExitError(err error, substr string) bool {
	return err != nil && strings.Contains(err.Error(), substr)
}

func stopStarted(e *env, w *state.Worker) {
	if w.Tmux != nil {
		if p, err := e.tm.Pane(w.Tmux.PaneID); err == nil && !p.Dead {
			killGroup(p.PID, 2*time.Second)
		}
		_ = e.tm.KillPane(w.Tmux.PaneID)
		return
	}
	killGroup(w.PID, 2*time.Second)
}

func validateSession(s string) error {
	if !nameRE.MatchString(s) {
		return fail("invalid session name %s: %s", quoteName(s), nameRule)
	}
	return nil
}

// startProcess runs argv detached, in its own session and process group, under swarm's small
// wrapper that records the exit code when the program ends.
func startProcess(e *env, name, cwd string, envList, argv []string) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	_ = os.Remove(e.dir.ExitPath(name))
	stdout, err := os.OpenFile(e.dir.LogPath(name, "stdout"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, err
	}
	defer stdout.Close()
	stderr, err := os.OpenFile(e.dir.LogPath(name, "stderr"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, err
	}
	defer stderr.Close()
	argv = append([]string{exe, "__run", "--exit-file", e.dir.ExitPath(name), "--"}, argv...)
	return startDetached(argv, cwd, envList, stdout, stderr)
}

// startDetached starts argv in a session of its own (so it leads its own process group and
// outlives the terminal), with stdin from /dev/null, and lets it go.
func startDetached(argv []string, dir string, env []string, stdout, stderr *os.File) (int, error) {
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return 0, err
	}
	defer devnull.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pid := cmd.Process.Pid
	_ = cmd.Process.Release()
	return pid, nil
}

// liveView is a worker's status as it is now, not as it was last recorded.
type liveView struct {
	panes map[string]tmux.Pane
}

func (e *env) live() (*liveView, error) {
	panes, err := e.tm.Panes()
	if err != nil {
		return nil, fail("%v", err)
	}
	return &liveView{panes: panes}, nil
}

// reconcile updates w in memory to what tmux and the OS say now: a worker whose pane is gone
// or dead, or whose process has ended, is stopped (with its exit code when known).
func (e *env) reconcile(lv *liveView, w *state.Worker) {
	if w.Tmux != nil {
		p, ok := lv.panes[w.Tmux.PaneID]
		switch {
		case !ok:
			w.Status = state.StatusStopped
		case p.Dead:
			w.Status = state.StatusStopped
			w.ExitCode = e.exitCode(w.Name, p)
		default:
			w.Status = state.StatusRunning
			w.PID = p.PID
		}
		return
	}
	if code, ok := e.dir.ExitCode(w.Name); ok {
		w.Status = state.StatusStopped
		w.ExitCode = &code
		return
	}
	if processAlive(w.PID, pidStart(w)) {
		w.Status = state.StatusRunning
	} else {
		w.Status = state.StatusStopped
	}
}

func pidStart(w *state.Worker) uint64 {
	switch v := w.Metadata["pid_start"].(type) {
	case float64:
		return uint64(v)
	case uint64:
		return v
	case json.Number:
		n, _ := strconv.ParseUint(string(v), 10, 64)
		return n
	}
	return 0
}

// exitCode is a finished worker's exit code: what its wrapper recorded, else what tmux saw of
// its pane, else nil.
func (e *env) exitCode(name string, p tmux.Pane) *int {
	if code, ok := e.dir.ExitCode(name); ok {
		return &code
	}
	if p.Dead && p.HasStatus {
		code := p.ExitStatus
		return &code
	}
	return nil
}

// loadWorker returns the named worker reconciled with reality, or a not-found error.
func (e *env) loadWorker(name string) (*state.Worker, *liveView, error) {
	if err := validateName(name); err != nil {
		return nil, nil, err
	}
	ws, err := e.dir.LoadWorkers(e.warnErr)
	if err != nil {
		return nil, nil, fail("%v", err)
	}
	w := ws.Get(name)
	if w == nil {
		return nil, nil, notFound(name)
	}
	lv, err := e.live()
	if err != nil {
		return nil, nil, err
	}
	e.reconcile(lv, w)
	return w, lv, nil
}

// loadAll returns every worker, reconciled.
func (e *env) loadAll() ([]*state.Worker, *liveView, error) {
	ws, err := e.dir.LoadWorkers(e.warnErr)
	if err != nil {
		return nil, nil, fail("%v", err)
	}
	lv, err := e.live()
	if err != nil {
		return nil, nil, err
	}
	list := ws.List()
	for _, w := range list {
		e.reconcile(lv, w)
	}
	return list, lv, nil
}

// targets resolves a command's worker arguments: the named ones, or all (filtered) with --all.
func (e *env) targets(names []string, all bool, keep func(*state.Worker) bool) ([]*state.Worker, *liveView, error) {
	if all {
		if len(names) > 0 {
			return nil, nil, fail("give worker names or --all, not both")
		}
		list, lv, err := e.loadAll()
		if err != nil {
			return nil, nil, err
		}
		var out []*state.Worker
		for _, w := range list {
			if keep == nil || keep(w) {
				out = append(out, w)
			}
		}
		return out, lv, nil
	}
	if len(names) == 0 {
		return nil, nil, fail("no worker name given (or use --all)")
	}
	for _, n := range names {
		if err := validateName(n); err != nil {
			return nil, nil, err
		}
	}
	// One read of the records and one look at tmux serve every name.
	list, lv, err := e.loadAll()
	if err != nil {
		return nil, nil, err
	}
	byName := make(map[string]*state.Worker, len(list))
	for _, w := range list {
		byName[w.Name] = w
	}
	var out []*state.Worker
	for _, n := range names {
		w := byName[n]
		if w == nil {
			return nil, nil, notFound(n)
		}
		out = append(out, w)
	}
	return out, lv, nil
}

// stopWorker ends a worker's whole process group (SIGTERM, grace, SIGKILL), removes its window
// and records it as stopped. It returns the exit code when one was observed.
func stopWorker(e *env, w *state.Worker, grace time.Duration) {
	var exit *int
	if w.Tmux != nil {
		if p, err := e.tm.Pane(w.Tmux.PaneID); err == nil {
			if !p.Dead {
				killGroup(p.PID, grace)
			}
			p2, _ := e.tm.Pane(w.Tmux.PaneID)
			exit = e.exitCode(w.Name, p2)
			_ = e.tm.KillPane(w.Tmux.PaneID)
		}
		_ = e.tm.KillSessionIfEmpty(w.Tmux.Session)
	} else {
		if processAlive(w.PID, pidStart(w)) {
			killGroup(w.PID, grace)
		}
		exit = e.exitCode(w.Name, tmux.Pane{})
	}
	_ = e.dir.UpdateWorkers(e.warnErr, func(ws *state.Workers) error {
		cur := ws.Get(w.Name)
		if cur == nil {
			return nil
		}
		cur.Status = state.StatusStopped
		if exit != nil {
			cur.ExitCode = exit
		}
		return nil
	})
	w.Status = state.StatusStopped
	if exit != nil {
		w.ExitCode = exit
	}
}

// waitReady polls the worker's screen until the agent shows an input prompt.
func waitReady(e *env, w *state.Worker, timeout time.Duration, pattern *regexp.Regexp) error {
	if w.Tmux == nil {
		return fail("--ready-wait needs a tmux worker (add --tmux)")
	}
	deadline := time.Now().Add(timeout)
	var last screen.State
	for {
		p, err := e.tm.Pane(w.Tmux.PaneID)
		if err != nil || p.Dead {
			msg := fmt.Sprintf("worker '%s' exited before it was ready", w.Name)
			if code := e.exitCode(w.Name, p); code != nil {
				msg += fmt.Sprintf(" (exit %d)", *code)
			}
			return fail("%s", msg)
		}
		text, err := e.tm.Capture(w.Tmux.PaneID, 0)
		if err == nil {
			last = screen.Classify(text, pattern)
			if last.Kind == screen.Ready {
				return nil
			}
		}
		if time.Now().After(deadline) {
			if last.Kind == screen.Dialog {
				return fail("worker '%s' not ready after %s: blocked by %s", w.Name, timeout, screen.DialogDescription(last.Dialog))
			}
			return fail("worker '%s' not ready after %s (no input prompt seen; use --ready-pattern if the agent's prompt is unusual)", w.Name, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
