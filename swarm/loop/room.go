package loop

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// Before a loop is started under a name: what an earlier worker or loop of that name left.

// Room says how a name was made free for a new loop, for the command to tell.
type Room struct {
	Replaced bool // the worker of that name was ended and removed
	Cleared  bool // the earlier loop's state was removed, history too (clean state)
}

// MakeRoom refuses a name in use, or when replace is set ends and removes its worker
// (its processes, monitor, worktree and loop state). What an earlier loop of the name left is
// cleared, except its history (iterations.log, monitor.log), which cleanState clears too. The
// Room says what was done, also when a later step failed.
func (l Loops) MakeRoom(name string, replace, cleanState bool) (Room, error) {
	m := l.m
	var room Room
	ws, err := m.Dir().LoadWorkers(func(err error) { m.Warnf("%v", err) })
	if err != nil {
		return room, err
	}
	if w := ws.Get(name); w != nil {
		if !replace {
			return room, fmt.Errorf("worker '%s' already exists (use --replace to kill it and start afresh)", name)
		}
		if err := l.replaceWorker(name); err != nil {
			return room, err
		}
		room.Replaced = true
	}
	ld := ralph.DirFor(m.Dir(), name)
	if ld.MonitorAlive() {
		return room, fmt.Errorf("a ralph loop for '%s' is still running", name)
	}
	if !cleanState && !replace {
		return room, clearLoopKeepingHistory(ld)
	}
	if _, err := os.Stat(ld.Path); err == nil {
		if err := os.RemoveAll(ld.Path); err != nil {
			return room, fmt.Errorf("cannot remove the ralph state of '%s': %w", name, err)
		}
		room.Cleared = cleanState
	}
	return room, nil
}

// replaceWorker ends the worker of that name and removes all it left, worktree included
// (uncommitted changes too: a replacement asks for a fresh start).
func (l Loops) replaceWorker(name string) error {
	m := l.m
	ws, _, err := m.Targets([]string{name}, false, nil)
	if err != nil {
		return err
	}
	w := ws[0]
	if err := l.StopOnKill(name); err != nil {
		return err
	}
	if err := m.Stop(w, 5*time.Second); err != nil {
		return err
	}
	l.WaitMonitorGone(name, 5*time.Second)
	return cleanWorker(m, w, worker.CleanWhat{Worktree: true, ForceDirty: true, Loop: true})
}

// historyFiles are what a new loop of the same name keeps of the last one: its logs, and their
// older parts (see state.Log).
var historyFiles = map[string]bool{"iterations.log": true, "monitor.log": true, "iterations.log.1": true, "monitor.log.1": true}

// clearLoopKeepingHistory removes an earlier loop's state, screens and files, so that nothing
// of it leaks into the new loop, and keeps its logs, which the new loop appends to.
func clearLoopKeepingHistory(ld ralph.Dir) error {
	entries, err := os.ReadDir(ld.Path)
	if err != nil {
		return nil
	}
	for _, ent := range entries {
		if historyFiles[ent.Name()] {
			continue
		}
		if err := os.RemoveAll(filepath.Join(ld.Path, ent.Name())); err != nil {
			return fmt.Errorf("cannot clear the earlier ralph state of '%s': %w", filepath.Base(ld.Path), err)
		}
	}
	return nil
}
