package worker

import (
	"os"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// CleanWhat says what cleaning a worker removes besides its record, window and files.
type CleanWhat struct {
	Worktree   bool // its git worktree (kept when dirty unless ForceDirty)
	ForceDirty bool
	Loop       bool // its ralph loop's state and history
}

// Everything is what a spawn that failed halfway leaves behind: nothing of it is worth keeping.
var Everything = CleanWhat{Worktree: true, Loop: true}

// Clean removes what a stopped worker left: its window, the processes that still carry its
// identity, its files and record, and what `what` names of its worktree and loop.
func (m *Machine) Clean(w *state.Worker, what CleanWhat) error {
	if _, ok := m.OwnPane(w); ok {
		_ = m.TmuxFor(w).KillPane(w.Tmux.PaneID)
	}
	m.endTagged(w, 2*time.Second)
	if what.Worktree && w.Worktree != nil {
		m.RemoveWorktree(w.Worktree, what.ForceDirty)
	}
	if what.Loop {
		m.RemoveLoop(w.Name)
	}
	d := m.dir
	for _, p := range []string{d.LogPath(w.Name, "stdout"), d.LogPath(w.Name, "stderr"), d.ExitPath(w.Name), d.EnvPath(w.Name), d.ScriptPath(w.Name), d.ScreenPath(w.Name),
		d.PaneShellPath(w.Name), d.PaneShellModesPath(w.Name), d.AgentPIDPath(w.Name), d.InputLockPath(w.Name)} {
		_ = os.Remove(p)
	}
	_ = os.RemoveAll(d.SandboxCachePath(w.Name))
	return m.dir.UpdateWorkers(m.warnErr, func(all *state.Workers) error {
		all.Delete(w.Name)
		return nil
	})
}

// RemoveLoop removes a loop's state and history, unless a monitor still drives it.
func (m *Machine) RemoveLoop(name string) {
	ld := ralph.DirFor(m.dir, name)
	if ld.MonitorAlive() {
		return
	}
	_ = os.RemoveAll(ld.Path)
}
