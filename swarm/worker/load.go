package worker

import (
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
)

// Which workers a caller acts on, reconciled, and the panes that are still theirs.

// Load returns the named worker reconciled with reality, or a not-found error.
func (m *Machine) Load(name string) (*state.Worker, *LiveView, error) {
	if err := ValidateName(name); err != nil {
		return nil, nil, err
	}
	ws, err := m.dir.LoadWorkers(m.warnErr)
	if err != nil {
		return nil, nil, err
	}
	w := ws.Get(name)
	if w == nil {
		return nil, nil, noWorker(name)
	}
	lv, err := m.Live()
	if err != nil {
		return nil, nil, err
	}
	was := w.Status
	m.Reconcile(lv, w)
	if endedBySelf(lv, w, was) {
		m.recordEnds([]*state.Worker{w})
	}
	m.warnSilent(lv)
	return w, lv, nil
}

// LoadAll returns every worker, reconciled.
func (m *Machine) LoadAll() ([]*state.Worker, *LiveView, error) {
	ws, err := m.dir.LoadWorkers(m.warnErr)
	if err != nil {
		return nil, nil, err
	}
	lv, err := m.Live()
	if err != nil {
		return nil, nil, err
	}
	list := ws.List()
	var ended []*state.Worker
	for _, w := range list {
		was := w.Status
		m.Reconcile(lv, w)
		if endedBySelf(lv, w, was) {
			ended = append(ended, w)
		}
	}
	m.recordEnds(ended)
	if !m.quietTmux {
		m.warnSilent(lv)
	}
	return list, lv, nil
}

// Targets resolves a command's worker arguments: the named ones, or all (filtered) with --all.
func (m *Machine) Targets(names []string, all bool, keep func(*state.Worker) bool) ([]*state.Worker, *LiveView, error) {
	if err := CheckTargetArgs(names, all); err != nil {
		return nil, nil, err
	}
	if all {
		list, lv, err := m.LoadAll()
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
	list, lv, err := m.LoadAll()
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
			return nil, nil, noWorker(n)
		}
		out = append(out, w)
	}
	return out, lv, nil
}

// OwnPane returns the worker's pane when it is still the worker's own (see state.Worker.Owns):
// another worker's pane must never be acted on.
func (m *Machine) OwnPane(w *state.Worker) (tmux.Pane, bool) {
	if w.Tmux == nil {
		return tmux.Pane{}, false
	}
	p, err := m.TmuxFor(w).Pane(w.Tmux.PaneID)
	if err != nil || !w.Owns(p.SwarmID) {
		return tmux.Pane{}, false
	}
	return p, true
}

// paneAgent is the process (and process group) of the agent in w's live pane: the pane's own,
// or, where the pane's process is a loop's pane shell, the agent it started.
func (m *Machine) paneAgent(w *state.Worker, p tmux.Pane) int {
	if pid, ok := m.dir.PaneShellAgent(w.Name, p.PID); ok {
		return pid
	}
	return p.PID
}
