package driver

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/ralph/proc"
)

// The user's steps a driver runs (checkers, hooks, test commands) run in process groups of
// their own, so they outlive a driver killed with SIGKILL: a successor re-running them would
// run them twice at once on one tree. A driver that keeps a directory of its children (the
// Regent) records each group there while it runs, its git commands too (a commit still in a
// slow hook would land beside the successor's own); its successor ends what is left of them
// before it drives anything.

var childrenDir atomic.Value // string

// KeepChildrenIn has every step and every git command this process runs from now on recorded
// in dir while it runs.
func KeepChildrenIn(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	childrenDir.Store(dir)
	git.TrackRuns(trackChild)
	return nil
}

// trackChild records the process group pgid (its leader's pid) until the returned func is
// called. The record holds the leader's start time, so a pid used again is not taken for it.
func trackChild(pgid int) (untrack func()) {
	dir, _ := childrenDir.Load().(string)
	start := proc.Start(pgid)
	if dir == "" || start == 0 {
		return func() {}
	}
	path := filepath.Join(dir, strconv.Itoa(pgid))
	if os.WriteFile(path, []byte(strconv.FormatUint(start, 10)+"\n"), 0o600) != nil {
		return func() {}
	}
	return func() { _ = os.Remove(path) }
}

// EndLeftChildren ends the process groups recorded in dir by a driver that died (SIGTERM,
// then SIGKILL after grace) and forgets them; it returns how many were still running.
func EndLeftChildren(dir string, grace time.Duration) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var alive []int
	for _, ent := range entries {
		path := filepath.Join(dir, ent.Name())
		pgid, err := strconv.Atoi(ent.Name())
		data, rerr := os.ReadFile(path)
		if err == nil && rerr == nil && pgid > 1 && strconv.FormatUint(proc.Start(pgid), 10) == strings.TrimSpace(string(data)) {
			alive = append(alive, pgid)
			_ = syscall.Kill(-pgid, syscall.SIGTERM)
		}
		_ = os.Remove(path)
	}
	// One grace for them all: they were all told to end at once. A group counts until the
	// kernel has none of it, zombies included, so that once this returns nothing of it is
	// left to see (proc's group watch, which ignores zombies, would return sooner).
	deadline := time.Now().Add(grace)
	for _, pgid := range alive {
		for syscall.Kill(-pgid, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	return len(alive)
}
