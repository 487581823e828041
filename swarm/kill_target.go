package swarm

import (
	"fmt"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// What kill, ralph stop and clean count as a live worker. A loop between agents (in backoff,
// waiting for a usage limit, paused, or about to start the next agent) runs no process its
// record could show, yet it will start one: it is as alive as a running agent. Its record may
// even be gone (cleaned by an older swarm, removed by hand): the loop is still found by name.

// killTarget is one name kill acts on: its worker record (nil when only its loop is left) and
// its loop's state (nil when it has none, or none that can be read).
type killTarget struct {
	name string
	w    *state.Worker
	loop *ralph.State
}

// loopUnfinished reports whether a loop may still start an agent: it is running (with an
// agent or between two), waiting for a usage limit to reset, or paused.
func loopUnfinished(st *ralph.State) bool {
	if st == nil {
		return false
	}
	switch st.Status {
	case ralph.StatusRunning, ralph.StatusWaiting, ralph.StatusPaused:
		return true
	}
	return false
}

// loopStanding says where an unfinished loop stands when no agent of it runs.
func loopStanding(st *ralph.State) string {
	switch {
	case st.Status == ralph.StatusPaused:
		return "paused"
	case st.Status == ralph.StatusWaiting:
		return "waiting for a usage limit to reset"
	case st.Phase == ralph.PhaseBackoff:
		return "in backoff"
	}
	return "between agents"
}

// workerLive reports whether the worker's own processes run (in its window or escaped from it).
func workerLive(w *state.Worker) bool {
	return w != nil && (w.Status == state.StatusRunning || w.Status == state.StatusOrphaned)
}

// live reports whether kill has something to stop: the worker's processes or its loop.
func (t killTarget) live() bool { return workerLive(t.w) || loopUnfinished(t.loop) }

// killReport is what kill says it did to t, decided on t as it was before the kill.
func killReport(t killTarget) string {
	switch {
	case workerLive(t.w):
		return "killed " + t.name
	case loopUnfinished(t.loop) && t.w == nil:
		return fmt.Sprintf("killed %s (its ralph loop was %s; its worker record was already gone)", t.name, loopStanding(t.loop))
	case loopUnfinished(t.loop):
		return fmt.Sprintf("killed %s (its ralph loop was %s; no agent was running)", t.name, loopStanding(t.loop))
	case t.w != nil:
		return fmt.Sprintf("%s: not running (%s)", t.name, t.w.Status)
	case t.loop != nil:
		return fmt.Sprintf("%s: not running (ralph loop %s)", t.name, t.loop.Status)
	}
	return t.name + ": not running"
}

// killTargets resolves kill's arguments: the named workers or loops, or with all every
// worker or loop that is live. A name with neither a record nor a loop is not found.
func killTargets(e *env, names []string, all bool) ([]killTarget, error) {
	if err := checkTargetArgs(names, all); err != nil {
		return nil, err
	}
	list, _, err := e.loadAll()
	if err != nil {
		return nil, err
	}
	byName := make(map[string]*state.Worker, len(list))
	for _, w := range list {
		byName[w.Name] = w
	}
	if !all {
		var out []killTarget
		for _, n := range names {
			t := killTarget{name: n, w: byName[n], loop: loopState(e, n)}
			if t.w == nil && t.loop == nil {
				return nil, notFound(n)
			}
			out = append(out, t)
		}
		return out, nil
	}
	var out []killTarget
	for _, w := range list {
		if t := (killTarget{name: w.Name, w: w, loop: loopState(e, w.Name)}); t.live() {
			out = append(out, t)
		}
	}
	for _, n := range loopNames(e) {
		if byName[n] == nil {
			if t := (killTarget{name: n, loop: loopState(e, n)}); t.live() {
				out = append(out, t)
			}
		}
	}
	return out, nil
}

// checkTargetArgs checks a command's worker arguments: names or --all, and valid names.
func checkTargetArgs(names []string, all bool) error {
	if all && len(names) > 0 {
		return fail("give worker names or --all, not both")
	}
	if !all && len(names) == 0 {
		return fail("no worker name given (or use --all)")
	}
	for _, n := range names {
		if err := validateName(n); err != nil {
			return err
		}
	}
	return nil
}

// loopState is the state of name's loop, or nil when it has none that can be read.
func loopState(e *env, name string) *ralph.State {
	st, err := ralph.DirFor(e.dir, name).Load()
	if err != nil {
		return nil
	}
	return st
}
