package worker

import (
	"os"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/proc"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
)

// Records rebuilt after the workers' state file was found corrupt: a worker that still runs
// must not be forgotten (nothing would list or kill it). Every worker carries its identity
// outside the file: its pane's @swarm_id option, and SWARM_WORKER_ID and SWARM_WORKER in the
// environment of its processes. What only the file held (tags, worktree, command) is lost.

// Rebuild finds the running workers of dir: the panes of its tmux server started for
// a worker, and process workers (group leaders carrying a worker's identity whose log is in
// dir).
func Rebuild(dir *state.Dir, tm tmux.Client) []*state.Worker {
	found := map[string]*state.Worker{} // by name
	ids := map[string]bool{}
	if panes, err := tm.Panes(); err == nil {
		for _, p := range panes {
			if p.SwarmID == "" || p.Dead {
				continue
			}
			name := proc.Environ(p.PID)["SWARM_WORKER"]
			if name == "" {
				name = p.WindowName
			}
			if ValidateName(name) != nil || found[name] != nil {
				continue
			}
			w := rebuiltRecord(dir, name, p.SwarmID, p.PID)
			w.Tmux = &state.TmuxInfo{Session: p.Session, Window: p.WindowName, Socket: tm.Socket(), PaneID: p.ID}
			found[name], ids[p.SwarmID] = w, true
		}
	}
	for _, pid := range proc.PIDs() {
		if pid == os.Getpid() {
			continue
		}
		env := proc.Environ(pid)
		id, name := env[state.IDVar], env["SWARM_WORKER"]
		if id == "" || ids[id] || found[name] != nil || ValidateName(name) != nil {
			continue
		}
		if _, pgrp, _, ok := proc.Stat(pid); !ok || pgrp != pid {
			continue // only the worker's own process, the leader of its group
		}
		if _, err := os.Stat(dir.LogPath(name, "stdout")); err != nil {
			continue // another state directory's worker
		}
		w := rebuiltRecord(dir, name, id, pid)
		w.Metadata["pid_start"] = proc.Start(pid)
		found[name], ids[id] = w, true
	}
	out := make([]*state.Worker, 0, len(found))
	for _, w := range found {
		out = append(out, w)
	}
	return out
}

func rebuiltRecord(dir *state.Dir, name, id string, pid int) *state.Worker {
	w := &state.Worker{ID: id, Name: name, Status: state.StatusRunning, Cmd: []string{}, Started: time.Now().UTC(),
		Tags: []string{}, PID: pid, Metadata: map[string]any{"rebuilt": true}}
	if ralph.DirFor(dir, name).Exists() {
		w.Metadata["ralph"] = true
	}
	return w
}
