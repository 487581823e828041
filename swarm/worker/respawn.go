package worker

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/swarm-dev/swarm/state"
)

// Respawn starts a stopped worker again as it was spawned: the same command, environment,
// directory, tags, tmux session and worktree (with cleanFirst a worktree made afresh from its
// branch, removed even when dirty with forceDirty; a clone made again as a clone). Its
// identity stays; its new window goes on the tmux server it lived on. When the new start
// fails, the old record is put back.
func (m *Machine) Respawn(w *state.Worker, cleanFirst, forceDirty bool) (*state.Worker, error) {
	var baseEnv []string
	if err := state.ReadJSON(m.dir.EnvPath(w.Name), &baseEnv); err != nil {
		baseEnv = nil
	}
	o := SpawnOptions{
		Name: w.Name, Tmux: w.Tmux != nil, Tags: w.Tags, Env: w.Env, Cwd: w.Cwd, Argv: w.Cmd,
		BaseEnv: baseEnv, Metadata: w.Metadata, ID: w.ID, Sandbox: w.Sandbox,
	}
	if w.Tmux != nil {
		o.Session = w.Tmux.Session
	}
	if w.Worktree != nil {
		if cleanFirst {
			if !m.RemoveWorktree(w.Worktree, forceDirty) {
				return nil, fmt.Errorf("cannot remove worktree %s for --clean-first", w.Worktree.Path)
			}
			o.Worktree, o.Branch, o.WorktreeDir = true, w.Worktree.Branch, filepath.Dir(w.Worktree.Path)
			o.CloneWorktree, o.Cwd = w.Worktree.Clone, w.Worktree.BaseRepo
		} else if _, err := os.Stat(w.Worktree.Path); err == nil {
			o.ExistingWorktree = w.Worktree
		} else {
			o.Worktree, o.Branch, o.WorktreeDir = true, w.Worktree.Branch, filepath.Dir(w.Worktree.Path)
			o.CloneWorktree, o.Cwd = w.Worktree.Clone, w.Worktree.BaseRepo
		}
	}
	if _, ok := m.OwnPane(w); ok {
		_ = m.TmuxFor(w).KillPane(w.Tmux.PaneID)
	}
	endsNow := false // its record still says it runs (a loop's worker, whose end no look records)
	if err := m.dir.UpdateWorkers(m.warnErr, func(all *state.Workers) error {
		cur := all.Get(w.Name)
		endsNow = cur != nil && cur.Status == state.StatusRunning
		all.Delete(w.Name)
		return nil
	}); err != nil {
		return nil, err
	}
	if endsNow {
		m.ended(w, EndedExited, "")
	}
	// The new pane goes on the server the worker lives on, not the one this command names.
	w2, err := m.onServer(w).Spawn(o)
	if err != nil {
		// Put the old record back so the worker is not lost from view.
		_ = m.dir.UpdateWorkers(m.warnErr, func(all *state.Workers) error {
			if all.Get(w.Name) == nil {
				w.Status = state.StatusStopped
				all.Put(w)
			}
			return nil
		})
		return nil, err
	}
	return w2, nil
}
