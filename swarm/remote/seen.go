package remote

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/state/eventlog"
)

// Seen is what was last seen of a host: when it last answered, what it said of its workers
// then, and why it did not answer since. The fleet view shows a host that does not answer
// from this, as unreachable with its last known workers, never as workers that stopped.
type Seen struct {
	// At is when the host last answered (RFC 3339); "" when it never did.
	At string `json:"at,omitempty"`
	// Workers is the host's `ls --format json` of then.
	Workers json.RawMessage `json:"workers,omitempty"`
	// Error is why the last try failed, "" when it answered.
	Error string `json:"error,omitempty"`
	// Tried is when it was last tried.
	Tried string `json:"tried,omitempty"`
	// Spawned are the workers started on the host from here since it was last asked, each
	// as ls shows it: a host that goes down before anyone asks it again still shows them.
	Spawned []Spawned `json:"spawned,omitempty"`
	// Version is the host's swarm version as it last said; Told is the difference of
	// versions last told to the user ("HOST-VERSION LOCAL-VERSION"), "" while there is none.
	Version string `json:"version,omitempty"`
	Told    string `json:"told,omitempty"`
}

// Spawned is a worker started on a host from here.
type Spawned struct {
	Name string `json:"name"`
	// At is when the host said it started (RFC 3339, this machine's clock).
	At string `json:"at"`
	// Worker is the worker as ls shows it.
	Worker json.RawMessage `json:"worker"`
}

// Seen reads what was last seen of the host name (empty when nothing was).
func (r Registry) Seen(name string) Seen {
	var s Seen
	_ = state.ReadJSON(r.path(name, ".seen.json"), &s)
	return s
}

// Answered records that the host answered at now with its workers, to a question asked at
// asked, and the version of its swarm ("" when it did not say): the workers spawned from here
// before the question are in the answer (or gone since), those spawned after are kept.
func (r Registry) Answered(name string, asked, now time.Time, workers json.RawMessage, version string) error {
	return r.changeSeen(name, func(s *Seen) {
		s.At, s.Tried, s.Error, s.Workers = stamp(now), stamp(now), "", workers
		if version != "" && version != s.Version {
			s.Version, s.Told = version, ""
		}
		kept := s.Spawned[:0]
		for _, w := range s.Spawned {
			if t, err := time.Parse(time.RFC3339Nano, w.At); err == nil && !t.Before(asked) {
				kept = append(kept, w)
			}
		}
		s.Spawned = kept
	})
}

// Failed records that trying the host at now failed with err; what was seen before stays.
func (r Registry) Failed(name string, now time.Time, err error) error {
	return r.changeSeen(name, func(s *Seen) { s.Error, s.Tried = err.Error(), stamp(now) })
}

// Reached records that the host answered at now, keeping what was seen of its workers.
func (r Registry) Reached(name string, now time.Time) error {
	return r.changeSeen(name, func(s *Seen) { s.At, s.Tried, s.Error = stamp(now), stamp(now), "" })
}

// AddSpawned records that the host started worker (as ls shows it) at now, replacing a
// worker of its name recorded before.
func (r Registry) AddSpawned(host, name string, now time.Time, worker json.RawMessage) error {
	return r.changeSeen(host, func(s *Seen) {
		s.At, s.Tried, s.Error = stamp(now), stamp(now), ""
		kept := s.Spawned[:0]
		for _, w := range s.Spawned {
			if w.Name != name {
				kept = append(kept, w)
			}
		}
		s.Spawned = append(kept, Spawned{Name: name, At: now.UTC().Format(time.RFC3339Nano), Worker: worker})
	})
}

// TellVersion records the host's swarm version as said now, and says whether its difference
// from this swarm's (local) is news to tell: once per change of either, not again while
// they stay as they are.
func (r Registry) TellVersion(name, version, local string) (tell bool) {
	_ = r.changeSeen(name, func(s *Seen) {
		if version != s.Version {
			s.Version, s.Told = version, ""
		}
		switch news := version + " " + local; {
		case version == local:
			s.Told = ""
		case s.Told != news:
			s.Told, tell = news, true
		}
	})
	return tell
}

// changeSeen changes what was seen of the host name, one process at a time: a spawn and an
// ls that end together must not lose each other's news.
func (r Registry) changeSeen(name string, change func(*Seen)) error {
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return err
	}
	lock, err := state.AcquireLock(r.path(name, ".seen.lock"))
	if err != nil {
		return err
	}
	defer lock.Unlock()
	s := r.Seen(name)
	was := s.Error
	change(&s)
	// What was seen is redrawn at the next look: it need not wait for the disk.
	if err := state.ReplaceJSON(r.path(name, ".seen.json"), s); err != nil {
		return err
	}
	if e, ok := reachEvent(name, was, s.Error); ok {
		// An event that cannot be written is left out: what was seen is recorded.
		_, _ = eventlog.Log{Root: filepath.Dir(r.dir)}.Append(e)
	}
	return nil
}

// reachEvent is the event of the host name becoming unreachable, or answering again, as the
// error of the last try went from was to now: once per change, however many tries fail.
func reachEvent(name, was, now string) (eventlog.Event, bool) {
	switch {
	case was == "" && now != "":
		return eventlog.Event{Kind: eventlog.HostUnreachable, Detail: name, Reason: now}, true
	case was != "" && now == "":
		return eventlog.Event{Kind: eventlog.HostBack, Detail: name}, true
	}
	return eventlog.Event{}, false
}

// Sent is what a spawn on a host sent with the worker, to send again on `swarm ralph resume`
// or `swarm host sync`: each local file and the name it has on the host.
type Sent struct {
	Worker string     `json:"worker"`
	Files  []SentFile `json:"files"`
}

// SentFile is one file sent with a worker.
type SentFile struct {
	// Local is the file's absolute path on this machine.
	Local string `json:"local"`
	// Name is its name in the worker's directory of sent files on the host.
	Name string `json:"name"`
}

func (r Registry) sentDir(host string) string { return filepath.Join(r.dir, host+".sent") }

// SaveSent records what was sent with the worker on host.
func (r Registry) SaveSent(host string, s Sent) error {
	if err := os.MkdirAll(r.sentDir(host), 0o700); err != nil {
		return err
	}
	return state.WriteJSON(filepath.Join(r.sentDir(host), s.Worker+".json"), s)
}

// LoadSent reads what was sent with the worker on host; nothing (and no error) when nothing
// was.
func (r Registry) LoadSent(host, worker string) (Sent, error) {
	var s Sent
	err := state.ReadJSON(filepath.Join(r.sentDir(host), worker+".json"), &s)
	if errors.Is(err, os.ErrNotExist) {
		return Sent{Worker: worker}, nil
	}
	return s, err
}
