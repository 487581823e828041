package worker

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/proc"
	"github.com/swarm-dev/swarm/ralph/sandbox"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
)

// DefaultSession is the tmux session a worker's window opens in when none is named.
const DefaultSession = "swarm"

// SpawnOptions is everything needed to start a worker; respawn and the ralph loop reuse it.
type SpawnOptions struct {
	Name     string
	Tmux     bool
	Session  string
	Worktree bool
	Branch   string
	// WorktreeDir is where --worktree puts the worktree (default <repo>-worktrees).
	WorktreeDir string
	Tags        []string
	Env         map[string]string
	Cwd         string
	Argv        []string
	Metadata    map[string]any
	// Start, when set, is how the program actually starts (Argv is what the record shows
	// and what respawn runs); by default Argv under the exit-recording script.
	Start *ralph.Launch
	// BaseEnv, when set, replaces the caller's environment (respawn reuses the original one).
	BaseEnv []string
	// CloneWorktree makes --worktree's worktree a clone of the repository that borrows its
	// objects instead of a git worktree: a sandboxed agent commits there without reach into
	// the repository's refs (see CreateClone).
	CloneWorktree bool
	// ExistingWorktree reuses a worktree instead of creating one (respawn).
	ExistingWorktree *state.WorktreeInfo
	// ID keeps the worker's identity across a respawn; empty gives a new worker a new one.
	ID string
	// Sandbox, when set, is how the worker's agent is confined (see ralph/sandbox); with
	// Worktree, a confined worker's worktree is a clone of its own (CloneWorktree).
	Sandbox *state.SandboxInfo
	// BeforeStart, when set, runs in the worker's directory (its worktree made) just before
	// its program starts: a loop's pre-iteration hooks.
	BeforeStart func(dir string)
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
			return fmt.Errorf("command not found: %s", argv0)
		}
		if fi.IsDir() || fi.Mode()&0o111 == 0 {
			return fmt.Errorf("command is not executable: %s", argv0)
		}
		return nil
	}
	if _, err := exec.LookPath(argv0); err != nil {
		return fmt.Errorf("command not found: %s", argv0)
	}
	return nil
}

// workerEnv is the complete environment a worker starts with.
func workerEnv(base []string, overrides map[string]string, name, id string) []string {
	if base == nil {
		base = os.Environ()
	}
	base = tmux.FilterEnv(base)
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
	// Processes that leave the worker's process group still carry this: it is how they are
	// found again.
	set(state.IDVar, id)
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, k+"="+m[k])
	}
	return out
}

// Spawn starts a worker and records it. It is transactional: when any step fails, what
// earlier steps created (worktree, window, process) is removed again and no record remains.
func (m *Machine) Spawn(o SpawnOptions) (*state.Worker, error) {
	cwd, err := spawnDir(o)
	if err != nil {
		return nil, err
	}
	if o.Session == "" {
		o.Session = DefaultSession
	}
	if err := validateSession(o.Session); err != nil {
		return nil, err
	}
	var w *state.Worker
	err = m.dir.UpdateWorkers(m.warnErr, func(ws *state.Workers) error {
		if ws.Get(o.Name) != nil {
			return fmt.Errorf("worker '%s' already exists", o.Name)
		}
		var err error
		if w, err = m.startRecorded(o, cwd, ws); err != nil {
			return err
		}
		ws.Put(w)
		return nil
	})
	if err != nil {
		if w != nil && (w.PID > 0 || w.Tmux != nil) && !isExitError(err, "already exists") {
			// The record could not be saved: take the started worker down again.
			m.stopStarted(w)
		}
		return nil, err
	}
	m.spawned(w)
	return w, nil
}

// spawnDir checks the name and command and returns the absolute directory to start in.
func spawnDir(o SpawnOptions) (string, error) {
	if err := ValidateName(o.Name); err != nil {
		return "", err
	}
	if len(o.Argv) == 0 {
		return "", fmt.Errorf("no command provided (use -- command...)")
	}
	cwd := o.Cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("cannot determine current directory: %w", err)
		}
		cwd = wd
	}
	cwd, err := filepath.Abs(cwd)
	if err != nil {
		return "", fmt.Errorf("invalid --cwd: %w", err)
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("directory not found: %s", cwd)
	}
	return cwd, nil
}

// startRecorded prepares the worktree, saves the environment and starts the program; on
// failure it undoes what it did. ws are the workers recorded.
func (m *Machine) startRecorded(o SpawnOptions, cwd string, ws *state.Workers) (*state.Worker, error) {
	wt, wtInfo, runDir, err := m.prepareWorktree(o, cwd, ws)
	if err != nil {
		return nil, err
	}
	undo := func() {
		if wt != nil {
			wt.Undo()
		}
	}
	if err := resolveCommand(o.Argv[0], runDir); err != nil {
		undo()
		return nil, err
	}
	if o.ID == "" {
		o.ID = uuid.NewString()
	}
	envList := workerEnv(o.BaseEnv, o.Env, o.Name, o.ID)
	if err := state.WriteJSON(m.dir.EnvPath(o.Name), envList); err != nil {
		undo()
		return nil, fmt.Errorf("cannot save worker environment: %w", err)
	}
	w := newRecord(o, runDir, wtInfo)
	if o.BeforeStart != nil {
		o.BeforeStart(runDir)
	}
	if err := m.startProgram(o, w, envList); err != nil {
		os.Remove(m.dir.EnvPath(o.Name))
		undo()
		return w, fmt.Errorf("cannot start worker '%s': %w", o.Name, err)
	}
	return w, nil
}

// prepareWorktree reuses or creates the worker's worktree, if it has one, and says where the
// worker runs.
func (m *Machine) prepareWorktree(o SpawnOptions, cwd string, ws *state.Workers) (*CreatedWorktree, *state.WorktreeInfo, string, error) {
	switch {
	case o.ExistingWorktree != nil:
		return nil, o.ExistingWorktree, o.ExistingWorktree.Path, nil
	case o.Worktree:
		p, err := placeWorktree(cwd, o.Name, o.Branch, o.WorktreeDir)
		if err != nil {
			return nil, nil, "", err
		}
		if other := cloneHolding(ws, o.Name, p.top, p.branch); other != nil {
			return nil, nil, "", fmt.Errorf("cannot create worktree on existing branch '%s': it is the branch of worker '%s' (its clone %s)",
				p.branch, other.Name, other.Worktree.Path)
		}
		create := p.add
		if o.CloneWorktree {
			create = p.clone
		}
		wt, err := create()
		if err != nil {
			return nil, nil, "", err
		}
		info := wt.Info
		return wt, &info, info.Path, nil
	}
	return nil, nil, cwd, nil
}

func newRecord(o SpawnOptions, runDir string, wt *state.WorktreeInfo) *state.Worker {
	w := &state.Worker{ID: o.ID, Name: o.Name, Status: state.StatusRunning, Cmd: o.Argv, Started: time.Now().UTC(),
		Cwd: runDir, Env: o.Env, Tags: o.Tags, Worktree: wt, Metadata: o.Metadata, Sandbox: o.Sandbox}
	if w.Tags == nil {
		w.Tags = []string{}
	}
	if w.Metadata == nil {
		w.Metadata = map[string]any{}
	}
	return w
}

// startProgram runs the worker's program in a tmux window or as a detached process, and
// notes where it runs in w.
func (m *Machine) startProgram(o SpawnOptions, w *state.Worker, envList []string) error {
	// In tmux the program runs under a script that records its exit code too: tmux does not
	// always collect the exit status of a pane whose program ends quickly. The script gives
	// it the environment saved in the worker's file (see ralph.Launch).
	launch := ralph.Launch{Argv: o.Argv, EnvFile: m.dir.EnvPath(o.Name), ExitFile: m.dir.ExitPath(o.Name),
		Script: m.dir.ScriptPath(o.Name), Wrapper: RunWrapper()}
	if o.Start != nil {
		launch = *o.Start
	}
	launch.Sandbox = m.SandboxPrefix(w, launch.Box)
	_ = os.Remove(m.dir.ExitPath(o.Name))
	if !o.Tmux {
		pid, err := m.startProcess(o.Name, w.Cwd, envList, append(append([]string{}, launch.Sandbox...), o.Argv...))
		if err == nil {
			w.PID = pid
			w.Metadata["pid_start"] = proc.Start(pid)
		}
		return err
	}
	startArgv, err := launch.Command()
	if err != nil {
		return err
	}
	p, err := m.tm.NewWindow(tmux.Spec{Session: o.Session, Window: o.Name, Cwd: w.Cwd, Argv: startArgv, ID: w.ID})
	if err != nil {
		return err
	}
	w.Tmux = &state.TmuxInfo{Session: o.Session, Window: o.Name, Socket: m.tm.Socket(), PaneID: p.ID}
	w.PID = p.PID
	return nil
}

// SandboxPrefix is the launcher that runs w's agent confined, box being its loop's box ("" for
// a worker that is no loop); nil for an agent that runs unconfined.
func (m *Machine) SandboxPrefix(w *state.Worker, box string) []string {
	if !w.Sandbox.Sandboxed() {
		return nil
	}
	return sandbox.ForWorker(w, m.dir.Root, box, m.dir.EgressPath(w.Name)).Prefix(RunWrapper()[0])
}

func isExitError(err error, substr string) bool {
	return err != nil && strings.Contains(err.Error(), substr)
}

func (m *Machine) stopStarted(w *state.Worker) {
	if w.Tmux != nil {
		if p, ok := m.OwnPane(w); ok && !p.Dead {
			m.procs.KillGroup(p.PID, 2*time.Second)
		}
		_ = m.TmuxFor(w).KillPane(w.Tmux.PaneID)
		return
	}
	m.procs.KillGroup(w.PID, 2*time.Second)
}

// Getenv is a variable of the worker's environment: its own (--env), else the one it inherits.
func (o SpawnOptions) Getenv(k string) string {
	if v, ok := o.Env[k]; ok {
		return v
	}
	if o.BaseEnv != nil {
		for _, kv := range o.BaseEnv {
			if name, v, ok := strings.Cut(kv, "="); ok && name == k {
				return v
			}
		}
		return ""
	}
	return os.Getenv(k)
}
