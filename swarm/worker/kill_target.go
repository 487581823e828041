package worker

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// What kill, ralph stop and clean count as a live worker. A loop between agents (in backoff,
// waiting for a usage limit, paused, or about to start the next agent) runs no process its
// record could show, yet it will start one: it is as alive as a running agent. Its record may
// even be gone (cleaned by an older swarm, removed by hand): the loop is still found by name.

// KillTarget is one name a kill acts on: its worker record (nil when only its loop is left)
// and its loop's state (nil when it has none, or none that can be read).
type KillTarget struct {
	Name   string
	Worker *state.Worker
	Loop   *ralph.State
}

// LoopUnfinished reports whether a loop may still start an agent: it is running (with an
// agent or between two), waiting for a usage limit to reset, or paused.
func LoopUnfinished(st *ralph.State) bool {
	if st == nil {
		return false
	}
	switch st.Status {
	case ralph.StatusRunning, ralph.StatusWaiting, ralph.StatusPaused:
		return true
	}
	return false
}

// WorkerLive reports whether the worker's own processes run (in its window or escaped from it).
func WorkerLive(w *state.Worker) bool {
	return w != nil && (w.Status == state.StatusRunning || w.Status == state.StatusOrphaned)
}

// Live reports whether a kill has something to stop: the worker's processes or its loop.
func (t KillTarget) Live() bool { return WorkerLive(t.Worker) || LoopUnfinished(t.Loop) }

// KillTargets resolves a kill's arguments: the named workers or loops, or with all every
// worker or loop that is live. A name with neither a record nor a loop is not found.
func (m *Machine) KillTargets(names []string, all bool) ([]KillTarget, error) {
	if err := CheckTargetArgs(names, all); err != nil {
		return nil, err
	}
	list, _, err := m.LoadAll()
	if err != nil {
		return nil, err
	}
	byName := make(map[string]*state.Worker, len(list))
	for _, w := range list {
		byName[w.Name] = w
	}
	if !all {
		var out []KillTarget
		for _, n := range names {
			t := KillTarget{Name: n, Worker: byName[n], Loop: m.LoopState(n)}
			if t.Worker == nil && t.Loop == nil {
				return nil, noWorker(n)
			}
			out = append(out, t)
		}
		return out, nil
	}
	var out []KillTarget
	for _, w := range list {
		if t := (KillTarget{Name: w.Name, Worker: w, Loop: m.LoopState(w.Name)}); t.Live() {
			out = append(out, t)
		}
	}
	for _, n := range m.LoopNames() {
		if byName[n] == nil {
			if t := (KillTarget{Name: n, Loop: m.LoopState(n)}); t.Live() {
				out = append(out, t)
			}
		}
	}
	return out, nil
}

// CheckTargetArgs checks a command's worker arguments: names or all, and valid names.
func CheckTargetArgs(names []string, all bool) error {
	if all && len(names) > 0 {
		return errors.New("give worker names or --all, not both")
	}
	if !all && len(names) == 0 {
		return errors.New("no worker name given (or use --all)")
	}
	for _, n := range names {
		if err := ValidateName(n); err != nil {
			return err
		}
	}
	return nil
}

// LoopState is the state of name's loop, or nil when it has none that can be read.
func (m *Machine) LoopState(name string) *ralph.State {
	st, err := ralph.DirFor(m.dir, name).Load()
	if err != nil {
		return nil
	}
	return st
}

// LoopNames lists the loops in the state directory, in name order.
func (m *Machine) LoopNames() []string {
	entries, _ := os.ReadDir(filepath.Join(m.dir.Root, "ralph"))
	var names []string
	for _, ent := range entries {
		if ent.IsDir() && ValidateName(ent.Name()) == nil {
			names = append(names, ent.Name())
		}
	}
	return names
}
