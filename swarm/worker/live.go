package worker

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
)

// The status of workers as it is now.

// LiveView is what tmux shows now, one look per tmux server, so a worker's status is what it
// is, not what was last recorded.
type LiveView struct {
	m     *Machine
	panes map[string]map[string]tmux.Pane // socket → pane ID → pane
	// silent are the servers that did not answer, with what asking them said: their workers'
	// status comes from the processes that carry their identity instead.
	silent map[string]error
}

// Live looks at this machine's tmux server once, for the statuses of its workers.
func (m *Machine) Live() (*LiveView, error) {
	lv := &LiveView{m: m, panes: map[string]map[string]tmux.Pane{}, silent: map[string]error{}}
	panes, err := m.tm.Panes()
	if errors.Is(err, tmux.ErrNotAnswering) {
		lv.silent[m.tm.Socket()] = err
	} else if err != nil {
		return nil, err
	}
	lv.panes[m.tm.Socket()] = panes
	return lv, nil
}

// Trouble says which servers did not answer, one line each ("" when all did).
func (lv *LiveView) Trouble() string {
	var msgs []string
	for _, err := range lv.silent {
		msgs = append(msgs, err.Error()+": status is taken from the workers' processes")
	}
	return strings.Join(msgs, "\n")
}

// warnSilent tells which servers did not answer, as warnings.
func (m *Machine) warnSilent(lv *LiveView) {
	if t := lv.Trouble(); t != "" {
		for _, line := range strings.Split(t, "\n") {
			m.Warnf("%s", line)
		}
	}
}

// SilentServer reports whether the server w lives on did not answer this command.
func (lv *LiveView) SilentServer(w *state.Worker) bool {
	_, ok := lv.silent[lv.m.TmuxFor(w).Socket()]
	return ok
}

// Pane finds a worker's pane on the server it was spawned on. Another server is asked once,
// when the first of its workers is looked at; one that is not running has no panes.
func (lv *LiveView) Pane(w *state.Worker) (tmux.Pane, bool) {
	tm := lv.m.TmuxFor(w)
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

// Reconcile updates w in memory to what tmux and the OS say now: a worker whose pane is gone
// or dead, or whose process has ended, is stopped (with its exit code when known), unless
// processes carrying its identity still run without it: then it is orphaned.
func (m *Machine) Reconcile(lv *LiveView, w *state.Worker) {
	was := w.Status
	if w.Tmux != nil {
		p, ok := lv.Pane(w)
		if lv.SilentServer(w) {
			m.reconcileByProcesses(w)
			return
		}
		switch {
		case !ok || !w.Owns(p.SwarmID):
			w.Status = state.StatusStopped
			w.ExitCode = m.ExitCode(w.Name, tmux.Pane{})
		case p.Dead:
			w.Status = state.StatusStopped
			w.ExitCode = m.ExitCode(w.Name, p)
		default:
			w.Status = state.StatusRunning
			w.PID = m.paneAgent(w, p)
			return
		}
	} else if code, ok := m.dir.ExitCode(w.Name); ok {
		w.Status = state.StatusStopped
		w.ExitCode = &code
	} else if m.procs.Alive(w.PID, pidStart(w)) {
		w.Status = state.StatusRunning
		return
	} else {
		w.Status = state.StatusStopped
	}
	// Only a worker that was running and vanished is looked for: a /proc scan for every
	// stopped worker would make ls slow.
	if was != state.StatusStopped && w.ID != "" && len(m.procs.Tagged(w.IDTag())) > 0 {
		w.Status = state.StatusOrphaned
	}
}

// reconcileByProcesses is reconcile for a worker whose tmux server did not answer: it runs
// while a process carrying its identity does (or, for a record without one, its own process).
func (m *Machine) reconcileByProcesses(w *state.Worker) {
	switch {
	case w.ID != "" && len(m.procs.Tagged(w.IDTag())) > 0:
		w.Status = state.StatusRunning
	case w.ID == "" && w.PID > 0 && m.procs.Alive(w.PID, 0):
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

// ExitCode is a finished worker's exit code: what its wrapper recorded, else what tmux saw of
// its pane, else nil.
func (m *Machine) ExitCode(name string, p tmux.Pane) *int {
	if code, ok := m.dir.ExitCode(name); ok {
		return &code
	}
	if p.Dead && p.HasStatus {
		code := p.ExitStatus
		return &code
	}
	return nil
}
