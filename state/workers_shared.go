package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
)

// One process (the Regent) drives many loops, and each reads its worker's record at every
// look at its agent, while the records change with every iteration any of them starts. Read
// by each loop, the file was decoded fifty times per write; shared, it is decoded once.

// shared holds the records last decoded from each state file, with the bytes they came from.
var shared struct {
	sync.Mutex
	byPath map[string]sharedWorkers
}

type sharedWorkers struct {
	data  []byte
	ws    *Workers
	byRaw map[string]*Worker // each record by the bytes it was decoded from
	// Records as NoteWorkerStart last wrote them: written again from these bytes while they
	// do not change (see workers_encode.go).
	encoded map[*Worker]string
}

// SharedWorker returns the named worker's record (nil when there is none) as last decoded by
// anyone in this process, decoded again only when the file's bytes changed (its inode, size
// and time can repeat from one write to another; its bytes are what counts). The record is
// shared: it must not be changed. A corrupt file (or a directory in its place) is set aside
// and the records rebuilt, as LoadWorkers does, and warn is told.
func (d *Dir) SharedWorker(name string, warn func(error)) (*Worker, error) {
	path := d.statePath()
	data, err := ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	var ws *Workers
	if why := notAFile(err); why != nil {
		ws, err = d.rebuilt(why, warn, false)
	} else if err != nil {
		return nil, err
	} else if c, ok, serr := sharedOf(path, data); serr != nil {
		return nil, serr
	} else if ok {
		return c.ws.Get(name), nil
	} else {
		ws, err = d.workersFrom(data, warn, false) // sets a corrupt file aside
	}
	if err != nil {
		return nil, err
	}
	return ws.Get(name), nil
}

// sharedOf is the records the state file at path holds as data, as shared: decoded again
// (and shared) only when data is not what was shared before. ok is false when data is not
// JSON at all.
func sharedOf(path string, data []byte) (c sharedWorkers, ok bool, err error) {
	c = sharedFor(path)
	if c.ws != nil && bytes.Equal(c.data, data) {
		return c, true, nil
	}
	if !json.Valid(data) {
		return c, false, nil
	}
	// A write changes one record or a few: the others are taken as decoded before, and
	// so are their encodings.
	ws, byRaw, err := decodeReusing(data, nil, c.byRaw)
	if err != nil {
		return c, true, fmt.Errorf("cannot read state file %s (%w); it was left as it is", path, err)
	}
	c = sharedWorkers{data: data, ws: ws, byRaw: byRaw, encoded: c.encoded}
	share(path, c)
	return c, true, nil
}

func sharedFor(path string) sharedWorkers {
	shared.Lock()
	defer shared.Unlock()
	return shared.byPath[path]
}

func share(path string, c sharedWorkers) {
	shared.Lock()
	defer shared.Unlock()
	if shared.byPath == nil {
		shared.byPath = map[string]sharedWorkers{}
	}
	shared.byPath[path] = c
}

// NoteWorkerStart runs fn on the named worker's record under the state lock and saves it when
// fn returns nil; a worker that is gone is no error (fn is not run). It is UpdateWorkers for
// one record, for what changes each time an agent starts (its pane's process, the iteration
// shown): the other records are neither decoded nor encoded again, and the file is replaced
// without waiting for the disk (a crash of the machine ends those processes too), so loops
// starting agents at once do not queue on the lock.
func (d *Dir) NoteWorkerStart(name string, fn func(*Worker) error) error {
	l, err := AcquireLock(d.lockPath())
	if err != nil {
		return err
	}
	defer l.Unlock()
	path := d.statePath()
	data, err := ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if why := notAFile(err); why != nil {
		return d.updateOne(name, fn, func() (*Workers, error) { return d.rebuilt(why, nil, true) })
	}
	if err != nil {
		return err
	}
	c, ok, err := sharedOf(path, data)
	if err != nil {
		return err
	}
	if !ok {
		return d.updateOne(name, fn, func() (*Workers, error) { return d.workersFrom(data, nil, true) })
	}
	return d.noteOne(path, c, name, fn)
}

// noteOne changes a copy of the named record in the records of c, saves them, and shares
// what it wrote (the next look, by any loop, decodes nothing).
func (d *Dir) noteOne(path string, c sharedWorkers, name string, fn func(*Worker) error) error {
	w := c.ws.Get(name)
	if w == nil {
		return nil
	}
	own, err := ownCopy(w, c.encoded[w])
	if err != nil {
		return err
	}
	if err := fn(own); err != nil {
		return err
	}
	ws := &Workers{byName: make(map[string]*Worker, len(c.ws.byName)), unreadable: c.ws.unreadable}
	for n, r := range c.ws.byName {
		ws.byName[n] = r
	}
	ws.Put(own)
	data, encoded, err := ws.encode(c.encoded)
	if err != nil {
		return err
	}
	if err := replaceFile(path, data, 0o600, false); err != nil {
		return err
	}
	byRaw := make(map[string]*Worker, len(encoded))
	for r, s := range encoded {
		byRaw[s] = r // as the file now holds each record
	}
	share(path, sharedWorkers{data: data, ws: ws, byRaw: byRaw, encoded: encoded})
	return nil
}

// ownCopy is a copy of a shared record that can be changed, decoded from its encoding when
// there is one.
func ownCopy(w *Worker, encoded string) (*Worker, error) {
	raw := []byte(encoded)
	if encoded == "" {
		var err error
		if raw, err = json.Marshal(w); err != nil {
			return nil, err
		}
	}
	own := new(Worker)
	if err := json.Unmarshal(raw, own); err != nil {
		return nil, err
	}
	return own, nil
}

// updateOne changes a fresh copy of the named record (the decoded ones may be shared).
func (d *Dir) updateOne(name string, fn func(*Worker) error, read func() (*Workers, error)) error {
	ws, err := read()
	if err != nil {
		return fmt.Errorf("cannot read state file %s (%w); it was left as it is", d.statePath(), err)
	}
	w := ws.Get(name)
	if w == nil {
		return nil
	}
	raw, err := json.Marshal(w)
	if err != nil {
		return err
	}
	own := new(Worker)
	if err := json.Unmarshal(raw, own); err != nil {
		return err
	}
	if err := fn(own); err != nil {
		return err
	}
	ws.Put(own)
	return d.saveWorkers(ws, false)
}
