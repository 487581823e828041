package driver

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/swarm-dev/swarm/state"
)

// The loop's worker record lives in the workers' state file, with every other worker's. When
// that file is found corrupt (or a directory in its place), whoever reads it first sets it
// aside and rebuilds the records of the workers still running from tmux and their processes,
// a loop's between two agents too; what only the file held (the agent's command, its
// directory, its environment's file, tags, worktree) is not in a rebuilt record. The loop
// still has its worker's record as it last read it whole: it writes that back over the
// rebuilt one, keeping the pane the rebuilt one found, and says so, so the next agent starts
// as the last did. A loop that never read it (its driver started after the loss) cannot start
// another agent, and says why.

// workerMemory is the loop's worker record as last read whole (never a rebuilt one).
type workerMemory struct {
	mu   sync.Mutex
	last *state.Worker // shared with every reader of the file: never changed
}

// errCommandLost: the worker's record was rebuilt, and its command is not known here.
var errCommandLost = errors.New("the worker's record was rebuilt after the workers' state file was lost, without the agent's command; start the loop again (swarm ralph spawn --replace)")

// worker returns the loop's worker record, as shared by every loop this process drives (it
// must not be changed).
func (c *Config) worker() (*state.Worker, error) {
	w, err := c.Workers.SharedWorker(c.Name, c.recordsLost)
	if err != nil {
		return nil, err
	}
	if w != nil && isRebuilt(w) {
		w = c.restoreWorker(w)
	}
	if w == nil || w.Tmux == nil {
		return nil, fmt.Errorf("worker '%s' is gone", c.Name)
	}
	if !isRebuilt(w) && c.record != nil {
		c.record.mu.Lock()
		c.record.last = w
		c.record.mu.Unlock()
	}
	return w, nil
}

// isRebuilt reports whether a record was rebuilt from what runs (see worker.Rebuild).
func isRebuilt(w *state.Worker) bool { return w.Metadata["rebuilt"] == true }

// restoreWorker writes the record the loop last read whole over the rebuilt one, when both
// are the same worker (its identity), with the pane and process the rebuilt one found; it
// returns the record as it is now.
func (c *Config) restoreWorker(rebuilt *state.Worker) *state.Worker {
	if c.record == nil {
		return rebuilt
	}
	c.record.mu.Lock()
	last := c.record.last
	c.record.mu.Unlock()
	if last == nil || last.ID == "" || last.ID != rebuilt.ID {
		return rebuilt
	}
	restored := *last
	restored.Tmux, restored.PID, restored.Status = rebuilt.Tmux, rebuilt.PID, rebuilt.Status
	err := c.Workers.UpdateWorkers(c.recordsLost, func(ws *state.Workers) error {
		if cur := ws.Get(c.Name); cur == nil || cur.ID != rebuilt.ID || !isRebuilt(cur) {
			return errNotRebuilt
		}
		ws.Put(&restored)
		return nil
	})
	switch {
	case err == nil:
		c.warn("its worker's record was rebuilt without its command and directory; restored them from what the loop last read")
	case !errors.Is(err, errNotRebuilt):
		c.warn(fmt.Sprintf("its worker's record was rebuilt without its command and directory, and cannot be restored: %v", err))
		return &restored // this loop goes on with it all the same
	}
	if w, err := c.Workers.SharedWorker(c.Name, c.recordsLost); err == nil && w != nil {
		return w
	}
	return &restored
}

// errNotRebuilt: the record was written again meanwhile (restored by another reader, or a
// new worker of the name), and is left as it is.
var errNotRebuilt = errors.New("the record is not the rebuilt one any more")

// recordsLost says that the workers' state file was found corrupt (and what was rebuilt).
func (c *Config) recordsLost(err error) { c.warn(err.Error()) }

// warn says a problem with the loop's worker record in its output and in its event log.
func (c *Config) warn(text string) {
	if c.Out != nil {
		fmt.Fprintf(c.Out, "[ralph] %s: warning: %s\n", c.Name, text)
	}
	now := time.Now()
	if c.Clock != nil {
		now = c.Clock.Now()
	}
	_ = c.Dir.LogEvent(now, "WARN", text)
}
