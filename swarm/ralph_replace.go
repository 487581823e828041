package swarm

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// Before a loop is spawned under a name: what an earlier worker or loop of that name left.

// makeRoomForLoop refuses a name in use, or with --replace ends and removes its worker (its
// processes, monitor, worktree and loop state). What an earlier loop of the name left is
// cleared, except its history (iterations.log, monitor.log), which --clean-state clears too.
func makeRoomForLoop(e *env, lo loopOptions, name string) error {
	ws, err := e.Dir().LoadWorkers(e.warnErr)
	if err != nil {
		return fail("%w", err)
	}
	if w := ws.Get(name); w != nil {
		if !lo.replace {
			return fail("worker '%s' already exists (use --replace to kill it and start afresh)", name)
		}
		if err := replaceWorker(e, name); err != nil {
			return err
		}
	}
	ld := ralph.DirFor(e.Dir(), name)
	if ld.MonitorAlive() {
		return fail("a ralph loop for '%s' is still running", name)
	}
	if lo.cleanState || lo.replace {
		if _, err := os.Stat(ld.Path); err == nil {
			if err := os.RemoveAll(ld.Path); err != nil {
				return fail("cannot remove the ralph state of '%s': %w", name, err)
			}
			if lo.cleanState {
				fmt.Fprintf(e.stdout, "cleared ralph state for %s\n", name)
			}
		}
		return nil
	}
	return clearLoopKeepingHistory(ld)
}

// replaceWorker ends the worker of that name and removes all it left, worktree included
// (uncommitted changes too: --replace asks for a fresh start).
func replaceWorker(e *env, name string) error {
	ws, _, err := e.Targets([]string{name}, false, nil)
	if err != nil {
		return err
	}
	w := ws[0]
	if err := stopLoopOnKill(e, name); err != nil {
		return err
	}
	if err := e.Stop(w, 5*time.Second); err != nil {
		return err
	}
	waitMonitorGone(e, name, 5*time.Second)
	if err := cleanWorker(e, w, worker.CleanWhat{Worktree: true, ForceDirty: true, Loop: true}); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "replaced existing worker %s\n", name)
	return nil
}

// historyFiles are what a new loop of the same name keeps of the last one: its logs.
var historyFiles = map[string]bool{"iterations.log": true, "monitor.log": true}

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
			return fail("cannot clear the earlier ralph state of '%s': %w", filepath.Base(ld.Path), err)
		}
	}
	return nil
}
