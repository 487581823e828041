package inbox

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/state"
)

// Statuses of a queued spec.
const (
	Pending = "pending"
	Active  = "active"
	Done    = "done"
	Failed  = "failed"
)

// Record is one line of the inbox.
type Record struct {
	T           string `json:"t"`
	ID          string `json:"id"`
	Spec        string `json:"spec"`
	AddedAt     string `json:"added_at"`
	Status      string `json:"status"`
	StartedAt   string `json:"started_at,omitempty"`
	CompletedAt string `json:"completed_at,omitempty"`
	Error       string `json:"error,omitempty"`
}

// Inbox is the queue of one project.
type Inbox struct {
	Root string // the project: the git root of the directory it was opened from
}

// Open finds the project of dir: its git repository's top directory, or dir itself outside
// one.
func Open(dir string, topLevel func(string) (string, error)) (Inbox, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Inbox{}, err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return Inbox{}, fmt.Errorf("directory not found: %s", dir)
	}
	if top, err := topLevel(abs); err == nil && top != "" {
		abs = top
	}
	return Inbox{Root: abs}, nil
}

// Path is the inbox file; SpecsDir where specs live.
func (ib Inbox) Path() string     { return filepath.Join(ib.Root, "ralph", "inbox.jsonl") }
func (ib Inbox) SpecsDir() string { return filepath.Join(ib.Root, "ralph", "specs") }

// rel is the inbox file as messages name it, relative to the project.
func (ib Inbox) rel() string { return filepath.Join("ralph", "inbox.jsonl") }

var idRe = regexp.MustCompile(`^q-[a-z0-9]{4}$`)

// Load reads every record, in queue order. A missing inbox is an empty one.
func (ib Inbox) Load() ([]Record, error) {
	data, err := os.ReadFile(ib.Path())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return Parse(data, ib.rel())
}

// Parse reads the records of an inbox file's content; name is the file as errors name it.
func Parse(data []byte, name string) ([]Record, error) {
	var recs []Record
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r Record
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("%s:%d: not an inbox record (%w); fix or remove the line", name, i+1, err)
		}
		if err := r.check(); err != nil {
			return nil, fmt.Errorf("%s:%d: %w; fix or remove the line", name, i+1, err)
		}
		recs = append(recs, r)
	}
	return recs, nil
}

func (r Record) check() error {
	switch {
	case r.T != "inbox":
		return fmt.Errorf(`"t" is %q, not "inbox"`, r.T)
	case !idRe.MatchString(r.ID):
		return fmt.Errorf("id %q does not match q-[a-z0-9]{4}", r.ID)
	case r.Spec == "":
		return errors.New("no spec")
	case r.Status != Pending && r.Status != Active && r.Status != Done && r.Status != Failed:
		return fmt.Errorf("status %q is not pending, active, done or failed", r.Status)
	}
	return nil
}

// Update changes the records under the inbox lock and writes them back atomically when fn
// returns nil. A corrupt inbox is reported and left as it is. A change that fails, or that
// leaves a project without an inbox with none, creates nothing: without one, fn is first asked
// without the lock (there is nothing to lock yet), and again under it once ralph/ exists, so it
// must be a function of the records it is given.
func (ib Inbox) Update(fn func([]Record) ([]Record, error)) error {
	dir := filepath.Dir(ib.Path())
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		recs, err := fn(nil)
		if err != nil || len(recs) == 0 {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	_, statErr := os.Stat(ib.Path())
	recs, err := ib.Load()
	if err != nil {
		return err
	}
	if recs, err = fn(recs); err != nil {
		return err
	}
	if len(recs) == 0 && errors.Is(statErr, os.ErrNotExist) {
		return nil
	}
	var b strings.Builder
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return state.WriteFileAtomic(ib.Path(), []byte(b.String()), 0o644)
}

// lockDir takes the inbox lock: an exclusive flock on the ralph/ directory itself, so no lock
// file is left in the project. It is released when the returned function is called.
func lockDir(dir string) (func(), error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return func() { f.Close() }, nil
}

// NewID is a queue id not taken yet.
func NewID(recs []Record) string {
	taken := map[string]bool{}
	for _, r := range recs {
		taken[r.ID] = true
	}
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	for {
		var b [4]byte
		_, _ = rand.Read(b[:])
		id := "q-"
		for _, c := range b {
			id += string(alphabet[int(c)%len(alphabet)])
		}
		if !taken[id] {
			return id
		}
	}
}

// Now is the time format of the records: RFC 3339, UTC.
func Now(t time.Time) string { return t.UTC().Format(time.RFC3339) }
