package state

import (
	"os"
	"sync"
	"syscall"
)

// One process (the Regent) drives many loops, and each reads its worker's record at every
// look at its agent, while the records change with every iteration any of them starts. Read
// by each loop, the file was decoded fifty times per write; shared, it is decoded once.

// version tells one content of the worker records from another: every write is a new file.
type version struct {
	ino         uint64
	size, mtime int64
}

func (d *Dir) workersVersion() (v version, ok bool) {
	fi, err := os.Stat(d.statePath())
	if err != nil {
		return version{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return version{}, false
	}
	return version{ino: st.Ino, size: fi.Size(), mtime: fi.ModTime().UnixNano()}, true
}

// shared holds the records last read from each state file, with their version.
var shared struct {
	sync.Mutex
	byPath map[string]sharedWorkers
}

type sharedWorkers struct {
	v  version
	ws *Workers
}

// SharedWorker returns the named worker's record (nil when there is none) as last read by
// anyone in this process, read again only when the records changed. The record is shared: it
// must not be changed.
func (d *Dir) SharedWorker(name string) (*Worker, error) {
	path := d.statePath()
	v, known := d.workersVersion()
	if known {
		shared.Lock()
		c, ok := shared.byPath[path]
		shared.Unlock()
		if ok && c.v == v {
			return c.ws.Get(name), nil
		}
	}
	// Read after the version was taken: a write in between is caught by the next call.
	ws, err := d.readWorkers(nil)
	if err != nil {
		return nil, err
	}
	if known {
		shared.Lock()
		if shared.byPath == nil {
			shared.byPath = map[string]sharedWorkers{}
		}
		shared.byPath[path] = sharedWorkers{v: v, ws: ws}
		shared.Unlock()
	}
	return ws.Get(name), nil
}
