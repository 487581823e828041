package worker

import (
	"os"
	"strconv"
	"strings"
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
// a worker (a loop's too between two agents, its pane's agent ended), and process workers
// (group leaders carrying a worker's identity whose log is in dir).
func Rebuild(dir *state.Dir, tm tmux.Client) []*state.Worker {
	found := map[string]*state.Worker{} // by name
	ids := map[string]bool{}
	if panes, err := tm.Panes(); err == nil {
		ws := paneWorkers(dir, panes)
		for name, p := range ws {
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

// paneWorkers are the panes that are workers, by name: a live pane started for a worker, or
// the pane of a loop between two agents (its agent ended). Where panes of one name are left
// (a dead one from before), a live one wins, then the newest.
func paneWorkers(dir *state.Dir, panes map[string]tmux.Pane) map[string]tmux.Pane {
	byName := map[string]tmux.Pane{}
	for _, p := range panes {
		if p.SwarmID == "" {
			continue
		}
		name := ""
		if !p.Dead {
			name = proc.Environ(p.PID)["SWARM_WORKER"]
		}
		if name == "" {
			name = p.WindowName
		}
		if ValidateName(name) != nil || p.Dead && !loopGoesOn(dir, name) {
			continue
		}
		if prev, ok := byName[name]; ok && !prev.Dead {
			continue
		} else if ok && p.Dead && paneNumber(p.ID) < paneNumber(prev.ID) {
			continue
		}
		byName[name] = p
	}
	return byName
}

// paneNumber is the number in a pane's ID (%12): tmux numbers panes as it makes them.
func paneNumber(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "%"))
	return n
}

// loopGoesOn reports whether name is a loop that has not ended: a pane of it whose agent
// ended is the loop between two agents, still a worker that runs (and that kill must end).
func loopGoesOn(dir *state.Dir, name string) bool {
	st, err := ralph.DirFor(dir, name).Load()
	return err == nil && st.Status != ralph.StatusStopped && st.Status != ralph.StatusFailed
}

func rebuiltRecord(dir *state.Dir, name, id string, pid int) *state.Worker {
	w := &state.Worker{ID: id, Name: name, Status: state.StatusRunning, Cmd: []string{}, Started: time.Now().UTC(),
		Tags: []string{}, PID: pid, Metadata: map[string]any{"rebuilt": true}}
	if ralph.DirFor(dir, name).Exists() {
		w.Metadata["ralph"] = true
	}
	return w
}
