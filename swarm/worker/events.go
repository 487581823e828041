package worker

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/state/eventlog"
)

// What the state directory's event log hears of workers: one started (Spawn), one ended. A
// worker ends once, where its record turns stopped under the workers' lock: a kill
// (StopAll), a respawn that replaces it, or the first look that finds a worker which is no
// loop ended by itself (Load, LoadAll), which records it so; later looks find it stopped and
// tell nothing. A loop's worker ends only by a kill or a respawn: between its agents its pane
// may well be dead, and what the loop does is told by the loop itself.

// tell writes e to the state directory's event log. An event that cannot be written is left
// out: the lifecycle's work is done either way.
func (m *Machine) tell(e eventlog.Event) { _, _ = eventlog.Log{Root: m.dir.Root}.Append(e) }

// spawned tells that w started.
func (m *Machine) spawned(w *state.Worker) {
	e := eventlog.Event{Kind: eventlog.WorkerSpawned, Worker: w.Name}
	if len(w.Cmd) > 0 {
		e.Detail = filepath.Base(w.Cmd[0])
	}
	m.tell(e)
}

// How a worker ended, in the word worker.ended gives it.
const (
	EndedExited = "exited" // its program ended by itself
	EndedKilled = "killed" // swarm ended it (kill, respawn)
)

// ended tells that the worker of record w ended, how; why says more than its exit code, if
// anything.
func (m *Machine) ended(w *state.Worker, how, why string) {
	e := eventlog.Event{Kind: eventlog.WorkerEnded, Worker: w.Name, How: how, Reason: why}
	if w.ExitCode != nil && why == "" {
		e.Reason = fmt.Sprintf("exit %d", *w.ExitCode)
	}
	m.tell(e)
}

// endedBySelf reports whether a look found w, recorded as running (was), ended by itself: no
// loop's worker, and not one whose tmux server did not answer (then it is not known).
func endedBySelf(lv *LiveView, w *state.Worker, was string) bool {
	return was == state.StatusRunning && w.Status == state.StatusStopped && w.Metadata["ralph"] != true &&
		(w.Tmux == nil || !lv.SilentServer(w))
}

// errNoneEnded: every worker a look found ended was recorded so meanwhile.
var errNoneEnded = errors.New("no record to change")

// recordEnds records the workers a look found ended by itself (as reconciled: stopped, with
// their exit codes) and tells each end, once: a record another look changed first is left
// alone, and its end is that look's to tell.
func (m *Machine) recordEnds(ended []*state.Worker) {
	if len(ended) == 0 {
		return
	}
	var changed []*state.Worker
	err := m.dir.UpdateWorkers(nil, func(all *state.Workers) error {
		changed = changed[:0]
		for _, w := range ended {
			cur := all.Get(w.Name)
			if cur == nil || cur.ID != w.ID || cur.Status != state.StatusRunning {
				continue
			}
			cur.Status, cur.ExitCode = state.StatusStopped, w.ExitCode
			changed = append(changed, w)
		}
		if len(changed) == 0 {
			return errNoneEnded
		}
		return nil
	})
	if err != nil {
		return
	}
	for _, w := range changed {
		m.ended(w, EndedExited, "")
	}
}
