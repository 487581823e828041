package heartbeat

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swarm-dev/swarm/state"
)

// Store is the heartbeats directory of a swarm state root.
type Store struct {
	Dir string
}

// StoreFor is the heartbeats of the state root.
func StoreFor(d *state.Dir) Store { return Store{Dir: filepath.Join(d.Root, "heartbeats")} }

// ErrNone means the worker has no heartbeat.
var ErrNone = errors.New("no heartbeat")

func (s Store) path(worker string) string { return filepath.Join(s.Dir, worker+".json") }
func (s Store) lockPath() string          { return filepath.Join(s.Dir, ".lock") }

// RunnerLock is held by the process that sends the beats while it sends them: the Regent, or
// the heartbeat runner of an older swarm, never both.
func (s Store) RunnerLock() string { return filepath.Join(s.Dir, ".runner.lock") }

// Load reads a worker's heartbeat, or ErrNone.
func (s Store) Load(worker string) (*State, error) {
	var h State
	if err := state.ReadJSON(s.path(worker), &h); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, ErrNone
		}
		return nil, err
	}
	if h.WorkerName == "" {
		h.WorkerName = worker
	}
	return &h, nil
}

// List reads every heartbeat, by worker name; unreadable files are reported through warn.
func (s Store) List(warn func(error)) []*State {
	entries, _ := os.ReadDir(s.Dir)
	var out []*State
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || strings.HasPrefix(name, ".") || e.IsDir() {
			continue
		}
		h, err := s.Load(name)
		if err != nil {
			if warn != nil && !errors.Is(err, ErrNone) {
				warn(err)
			}
			continue
		}
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].WorkerName < out[j].WorkerName })
	return out
}

// Update changes a worker's heartbeat under the store's lock, so the Regent and a command
// never overwrite each other's change; fn gets nil when there is none, and returning a nil
// state from fn writes nothing.
func (s Store) Update(worker string, fn func(*State) (*State, error)) (*State, error) {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, err
	}
	l, err := state.AcquireLock(s.lockPath())
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	cur, err := s.Load(worker)
	if err != nil && !errors.Is(err, ErrNone) {
		return nil, err
	}
	next, err := fn(cur)
	if err != nil || next == nil {
		return next, err
	}
	if err := state.WriteJSON(s.path(worker), next); err != nil {
		return nil, fmt.Errorf("cannot write heartbeat of %s: %w", worker, err)
	}
	return next, nil
}

// AnyActive reports whether some heartbeat is active.
func (s Store) AnyActive() bool { return len(s.ActiveWorkers()) > 0 }

// ActiveWorkers are the names of the workers whose heartbeat is active, in name order.
func (s Store) ActiveWorkers() []string {
	names := []string{}
	for _, h := range s.List(nil) {
		if h.Status == Active {
			names = append(names, h.WorkerName)
		}
	}
	return names
}
