package state

import (
	"bytes"
	"errors"
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
	data []byte
	ws   *Workers
}

// SharedWorker returns the named worker's record (nil when there is none) as last decoded by
// anyone in this process, decoded again only when the file's bytes changed (its inode, size
// and time can repeat from one write to another; its bytes are what counts). The record is
// shared: it must not be changed.
func (d *Dir) SharedWorker(name string) (*Worker, error) {
	path := d.statePath()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	shared.Lock()
	c, ok := shared.byPath[path]
	shared.Unlock()
	if ok && bytes.Equal(c.data, data) {
		return c.ws.Get(name), nil
	}
	ws, err := d.workersFrom(data, nil)
	if err != nil {
		return nil, err
	}
	shared.Lock()
	if shared.byPath == nil {
		shared.byPath = map[string]sharedWorkers{}
	}
	shared.byPath[path] = sharedWorkers{data: data, ws: ws}
	shared.Unlock()
	return ws.Get(name), nil
}
