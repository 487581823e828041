package swarm

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
)

// Which workers a command acts on, and their status as it is now.

// liveView is what tmux shows now, one look per tmux server, so a worker's status is what it
// is, not what was last recorded.
type liveView struct {
	e     *env
	panes map[string]map[string]tmux.Pane // socket → pane ID → pane
	// silent are the servers that did not answer, with what asking them said: their workers'
	// status comes from the processes that carry their identity instead.
	silent map[string]error
}

func (e *env) live() (*liveView, error) {
	lv := &liveView{e: e, panes: map[string]map[string]tmux.Pane{}, silent: map[string]error{}}
	panes, err := e.tm.Panes()
	if errors.Is(err, tmux.ErrNotAnswering) {
		lv.silent[e.tm.Socket()] = err
	} else if err != nil {
		return nil, fail("%w", err)
	}
	lv.panes[e.tm.Socket()] = panes
	return lv, nil
}

// trouble says which servers did not answer, one line each ("" when all did).
func (lv *liveView) trouble() string {
	var msgs []string
	for _, err := range lv.silent {
		msgs = append(msgs, err.Error()+": status is taken from the workers' processes")
	}
	return strings.Join(msgs, "\n")
}

// warnSilent tells the user which servers did not answer, on stderr.
func (e *env) warnSilent(lv *liveView) {
	if t := lv.trouble(); t != "" {
		for _, line := range strings.Split(t, "\n") {
			e.warnf("%s", line)
		}
	}
}

// silentServer reports whether the server w lives on did not answer this command.
func (lv *liveView) silentServer(w *state.Worker) bool {
	_, ok := lv.silent[lv.e.tmuxFor(w).Socket()]
	return ok
}

// pane finds a worker's pane on the server it was spawned on. Another server is asked once,
// when the first of its workers is looked at; one that is not running has no panes.
func (lv *liveView) pane(w *state.Worker) (tmux.Pane, bool) {
	tm := lv.e.tmuxFor(w)
	panes, seen := lv.panes[tm.Socket()]
	if !seen {
		var err error
		panes, err = tm.Panes()
		if errors.Is(err, tmux.ErrNotAnswering) {
			lv.silent[tm.Socket()] = err
		}
		lv.panes[tm.Socket()] = panes
	}
	if w.Tmux.PaneID == "" {
		return paneByWindow(panes, w)
	}
	p, ok := panes[w.Tmux.PaneID]
	return p, ok
}

// paneByWindow finds the pane of a record that names only its session and window (the Python
// swarm's records), and remembers its ID for the rest of the command.
func paneByWindow(panes map[string]tmux.Pane, w *state.Worker) (tmux.Pane, bool) {
	for _, p := range panes {
		if p.Session == w.Tmux.Session && p.WindowName == w.Tmux.Window {
			w.Tmux.PaneID = p.ID
			return p, true
		}
	}
	return tmux.Pane{}, false
}

// reconcile updates w in memory to what tmux and the OS say now: a worker whose pane is gone
// or dead, or whose process has ended, is stopped (with its exit code when known), unless
// processes carrying its identity still run without it: then it is orphaned.
func (e *env) reconcile(lv *liveView, w *state.Worker) {
	was := w.Status
	if w.Tmux != nil {
		p, ok := lv.pane(w)
		if lv.silentServer(w) {
			e.reconcileByProcesses(w)
			return
		}
		switch {
		case !ok || !w.Owns(p.SwarmID):
			w.Status = state.StatusStopped
			w.ExitCode = e.exitCode(w.Name, tmux.Pane{})
		case p.Dead:
			w.Status = state.StatusStopped
			w.ExitCode = e.exitCode(w.Name, p)
		default:
			w.Status = state.StatusRunning
			w.PID = e.paneAgent(w, p)
			return
		}
	} else if code, ok := e.dir.ExitCode(w.Name); ok {
		w.Status = state.StatusStopped
		w.ExitCode = &code
	} else if e.procs.Alive(w.PID, pidStart(w)) {
		w.Status = state.StatusRunning
		return
	} else {
		w.Status = state.StatusStopped
	}
	// Only a worker that was running and vanished is looked for: a /proc scan for every
	// stopped worker would make ls slow.
	if was != state.StatusStopped && w.ID != "" && len(e.procs.Tagged(w.IDTag())) > 0 {
		w.Status = state.StatusOrphaned
	}
}

// reconcileByProcesses is reconcile for a worker whose tmux server did not answer: it runs
// while a process carrying its identity does (or, for a record without one, its own process).
func (e *env) reconcileByProcesses(w *state.Worker) {
	switch {
	case w.ID != "" && len(e.procs.Tagged(w.IDTag())) > 0:
		w.Status = state.StatusRunning
	case w.ID == "" && w.PID > 0 && e.procs.Alive(w.PID, 0):
		w.Status = state.StatusRunning
	case w.Status == state.StatusRunning:
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
		return nil, nil, fail("%w", err)
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
	e.warnSilent(lv)
	return w, lv, nil
}

// loadAll returns every worker, reconciled.
func (e *env) loadAll() ([]*state.Worker, *liveView, error) {
	ws, err := e.dir.LoadWorkers(e.warnErr)
	if err != nil {
		return nil, nil, fail("%w", err)
	}
	lv, err := e.live()
	if err != nil {
		return nil, nil, err
	}
	list := ws.List()
	for _, w := range list {
		e.reconcile(lv, w)
	}
	if !e.quietTmux {
		e.warnSilent(lv)
	}
	return list, lv, nil
}

// targets resolves a command's worker arguments: the named ones, or all (filtered) with --all.
func (e *env) targets(names []string, all bool, keep func(*state.Worker) bool) ([]*state.Worker, *liveView, error) {
	if err := checkTargetArgs(names, all); err != nil {
		return nil, nil, err
	}
	if all {
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

// ownPane returns the worker's pane when it is still the worker's own (see state.Worker.Owns):
// another worker's pane must never be acted on.
func (e *env) ownPane(w *state.Worker) (tmux.Pane, bool) {
	if w.Tmux == nil {
		return tmux.Pane{}, false
	}
	p, err := e.tmuxFor(w).Pane(w.Tmux.PaneID)
	if err != nil || !w.Owns(p.SwarmID) {
		return tmux.Pane{}, false
	}
	return p, true
}

// paneAgent is the process (and process group) of the agent in w's live pane: the pane's own,
// or, where the pane's process is a loop's host, the agent it started.
func (e *env) paneAgent(w *state.Worker, p tmux.Pane) int {
	if pid, ok := e.dir.HostedAgent(w.Name, p.PID); ok {
		return pid
	}
	return p.PID
}
