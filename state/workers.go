package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Worker statuses as stored and as reported after reconciliation with tmux and the OS.
const (
	StatusRunning = "running"
	StatusStopped = "stopped"
	// StatusOrphaned is a worker whose window or process group is gone while processes it
	// started still run (an agent whose tmux window was killed, a setsid grandchild).
	StatusOrphaned = "orphaned"
)

// TmuxInfo locates a worker's pane on swarm's private tmux server.
type TmuxInfo struct {
	Session string `json:"session"`
	Window  string `json:"window"`
	Socket  string `json:"socket"`
	PaneID  string `json:"pane_id"`
}

// WorktreeInfo describes the git worktree a worker runs in.
type WorktreeInfo struct {
	Path     string `json:"path"`
	Branch   string `json:"branch"`
	BaseRepo string `json:"base_repo"`
	// Clone says the worktree is a clone of BaseRepo that borrows its objects (git clone
	// --shared) rather than a git worktree: a sandboxed agent commits there without reach into
	// the repository's own refs, and its branch is fetched back into BaseRepo to be landed.
	Clone bool `json:"clone,omitempty"`
}

// Worker is one named agent process, in a tmux pane or as a detached process group.
type Worker struct {
	// ID tells this worker from any other that had, or will have, the same name or pane.
	ID       string            `json:"id,omitempty"`
	Name     string            `json:"name"`
	Status   string            `json:"status"`
	Cmd      []string          `json:"cmd"`
	Started  time.Time         `json:"started"`
	Cwd      string            `json:"cwd"`
	Env      map[string]string `json:"env,omitempty"`
	Tags     []string          `json:"tags"`
	Tmux     *TmuxInfo         `json:"tmux"`
	Worktree *WorktreeInfo     `json:"worktree"`
	PID      int               `json:"pid"`
	ExitCode *int              `json:"exit_code,omitempty"`
	Metadata map[string]any    `json:"metadata"`
	Sandbox  *SandboxInfo      `json:"sandbox,omitempty"`
}

// IDVar is the environment variable that carries a worker's ID into every process it starts.
const IDVar = "SWARM_WORKER_ID"

// IDTag is the environment entry (KEY=VALUE) by which the worker's processes are found.
func (w *Worker) IDTag() string { return IDVar + "=" + w.ID }

// Owns reports whether a pane whose @swarm_id is paneID is this worker's: after the tmux
// server restarted, the same pane ID can name another worker's pane. Records from before
// identities were kept (no ID) trust the pane ID.
func (w *Worker) Owns(paneID string) bool { return w.ID == "" || paneID == w.ID }

// HasTag reports whether the worker carries tag t.
func (w *Worker) HasTag(t string) bool {
	for _, x := range w.Tags {
		if x == t {
			return true
		}
	}
	return false
}

// Dir is an opened swarm state root ($SWARM_DIR).
type Dir struct {
	Root string
	// Rebuild, when set, finds the workers that still run (from tmux and the processes that
	// carry their identity) for records to replace a corrupt state file that was set aside.
	Rebuild func() []*Worker
}

// Open makes sure root exists, is a directory private to this user, and returns it.
func Open(root string) (*Dir, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create state directory %s: %w", abs, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("state directory %s is not a directory", abs)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return nil, fmt.Errorf("state directory %s is owned by another user (uid %d)", abs, st.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return nil, fmt.Errorf("state directory %s is writable by others (mode %04o); run: chmod 700 %s", abs, fi.Mode().Perm(), abs)
	}
	for _, sub := range []string{"logs", "ralph"} {
		if err := os.MkdirAll(filepath.Join(abs, sub), 0o700); err != nil {
			return nil, err
		}
	}
	return &Dir{Root: abs}, nil
}

func (d *Dir) statePath() string { return filepath.Join(d.Root, "state.json") }
func (d *Dir) lockPath() string  { return filepath.Join(d.Root, "state.lock") }

// LogPath is where a process-mode worker's stream (stdout or stderr) is written.
func (d *Dir) LogPath(name, stream string) string {
	return filepath.Join(d.Root, "logs", name+"."+stream+".log")
}

// ScreenPath keeps the last screen of an ended tmux worker, for peek and logs once its pane is
// gone.
func (d *Dir) ScreenPath(name string) string {
	return filepath.Join(d.Root, "logs", name+".screen")
}

// ExitPath is where a worker's wrapper records its exit code.
func (d *Dir) ExitPath(name string) string {
	return filepath.Join(d.Root, "logs", name+".exit")
}

// ExitCode reads the exit code the worker's wrapper recorded when its program ended (the
// file's first line; a second line may say why the program could not start). A first line
// without its line feed is still being written (the start script writes the file in place).
func (d *Dir) ExitCode(name string) (int, bool) {
	data, err := ReadFile(d.ExitPath(name))
	if err != nil {
		return 0, false
	}
	first, _, whole := strings.Cut(string(data), "\n")
	if !whole {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(first))
	return n, err == nil
}

// ScriptPath is the script the worker's program was last started under; it holds the
// worker's environment and is as private as EnvPath.
func (d *Dir) ScriptPath(name string) string {
	return filepath.Join(d.Root, "logs", name+".run.sh")
}

// EnvPath holds the full environment a worker was started with, so that later restarts of the
// same worker (respawn, loop iterations) reproduce it exactly.
func (d *Dir) EnvPath(name string) string {
	return filepath.Join(d.Root, "logs", name+".env.json")
}

// RalphDir is the per-worker directory of loop state, logs and locks.
func (d *Dir) RalphDir(name string) string {
	return filepath.Join(d.Root, "ralph", name)
}

// Workers is the set of worker records, keyed by name.
type Workers struct {
	byName map[string]*Worker
	// unreadable holds records that could not be read as workers, written back as they were.
	unreadable []json.RawMessage
}

// Get returns the named worker or nil.
func (ws *Workers) Get(name string) *Worker { return ws.byName[name] }

// Put adds or replaces a worker.
func (ws *Workers) Put(w *Worker) { ws.byName[w.Name] = w }

// Delete removes a worker.
func (ws *Workers) Delete(name string) { delete(ws.byName, name) }

// List returns the workers sorted by start time, then name.
func (ws *Workers) List() []*Worker {
	out := make([]*Worker, 0, len(ws.byName))
	for _, w := range ws.byName {
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Started.Equal(out[j].Started) {
			return out[i].Started.Before(out[j].Started)
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// LoadWorkers reads the worker records without locking: writes are atomic renames, so a reader
// always sees a complete file. A corrupt file is moved aside and reported through warn.
func (d *Dir) LoadWorkers(warn func(error)) (*Workers, error) {
	return d.readWorkers(warn, false)
}

// readWorkers reads the records; locked says the caller holds the state lock.
func (d *Dir) readWorkers(warn func(error), locked bool) (*Workers, error) {
	data, err := ReadFile(d.statePath())
	if errors.Is(err, os.ErrNotExist) {
		return &Workers{byName: map[string]*Worker{}}, nil
	}
	if why := notAFile(err); why != nil {
		return d.rebuilt(why, warn, locked)
	}
	if err != nil {
		return nil, err
	}
	return d.workersFrom(data, warn, locked)
}

// notAFile is why the state file could not be read when something other than a file sits
// in its place (a directory: no write would ever replace it), nil otherwise. That is read
// as a corrupt file: set aside, and the records rebuilt.
func notAFile(readErr error) error {
	if errors.Is(readErr, syscall.EISDIR) {
		return errors.New("it is a directory, not a file")
	}
	return nil
}

// PeekWorkers reads the worker records and changes nothing, not even a corrupt file (which
// LoadWorkers sets aside): for readers that must have no effect, such as shell completion.
func (d *Dir) PeekWorkers() (*Workers, error) {
	data, err := ReadFile(d.statePath())
	if errors.Is(err, os.ErrNotExist) {
		return &Workers{byName: map[string]*Worker{}}, nil
	}
	if err != nil {
		return nil, err
	}
	if !json.Valid(data) {
		return nil, fmt.Errorf("state file %s is corrupt", d.statePath())
	}
	return decodeWorkers(data, nil)
}

// workersFrom decodes the state file's bytes; locked says the caller holds the state lock
// (and writes the records itself once it has changed them).
func (d *Dir) workersFrom(data []byte, warn func(error), locked bool) (*Workers, error) {
	if !json.Valid(data) {
		var probe any
		return d.rebuilt(json.Unmarshal(data, &probe), warn, locked)
	}
	// A file that is JSON is never set aside: what cannot be read in it is reported and kept.
	read, err := decodeWorkers(data, warn)
	if err != nil {
		return nil, fmt.Errorf("cannot read state file %s (%w); it was left as it is", d.statePath(), err)
	}
	return read, nil
}

// rebuilt sets the corrupt state file aside (why: what is wrong with it) and returns the
// records rebuilt from what still runs (see Dir.Rebuild), written unless the caller holds
// the lock (and writes them itself); warn is told what happened.
func (d *Dir) rebuilt(why error, warn func(error), locked bool) (*Workers, error) {
	ws := &Workers{byName: map[string]*Worker{}}
	moved, merr := SetAside(d.statePath())
	if merr != nil {
		return nil, fmt.Errorf("state file %s is corrupt (%v) and could not be moved aside: %w", d.statePath(), why, merr)
	}
	ce := &CorruptError{Path: d.statePath(), MovedTo: moved, Err: why}
	if d.Rebuild != nil {
		for _, w := range d.Rebuild() {
			ws.Put(w)
			ce.Rebuilt = append(ce.Rebuilt, w.Name)
		}
		if len(ce.Rebuilt) > 0 && !locked {
			ce.WriteErr = d.writeRebuilt(ws)
		}
	}
	if warn != nil {
		warn(ce)
	}
	return ws, nil
}

// UpdateWorkers runs fn on the current records under the state lock and saves the result when fn
// returns nil. The records are re-read under the lock, so concurrent updates never overwrite
// each other.
func (d *Dir) UpdateWorkers(warn func(error), fn func(*Workers) error) error {
	l, err := AcquireLock(d.lockPath())
	if err != nil {
		return err
	}
	defer l.Unlock()
	ws, err := d.readWorkers(warn, true)
	if err != nil {
		return err
	}
	if err := fn(ws); err != nil {
		return err
	}
	return d.writeWorkers(ws)
}

func (d *Dir) writeWorkers(ws *Workers) error { return d.saveWorkers(ws, true) }

// writeRebuilt saves records rebuilt after the state file was set aside, under the state lock,
// together with whatever a writer that held the lock meanwhile (a spawn) has saved since.
func (d *Dir) writeRebuilt(rebuilt *Workers) error {
	l, err := AcquireLock(d.lockPath())
	if err != nil {
		return err
	}
	defer l.Unlock()
	cur, err := d.readWorkers(nil, true)
	if err != nil {
		return err
	}
	for _, w := range rebuilt.List() {
		if cur.Get(w.Name) == nil {
			cur.Put(w)
		}
	}
	return d.writeWorkers(cur)
}

// saveWorkers writes the records, waiting for the disk when durable.
func (d *Dir) saveWorkers(ws *Workers, durable bool) error {
	data, _, err := ws.encode(nil)
	if err != nil {
		return err
	}
	return replaceFile(d.statePath(), data, 0o600, durable)
}

// ReadJSON loads a JSON file into v. A file that is not JSON at all is moved aside and reported
// as a CorruptError; JSON that does not fit v is an error and stays in place; a missing file is
// os.ErrNotExist.
func ReadJSON(path string, v any) error {
	data, err := ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		if json.Valid(data) {
			// JSON that does not fit is left where it is: it may be another version's file.
			return fmt.Errorf("cannot read %s: %w", path, err)
		}
		moved, merr := SetAside(path)
		if merr != nil {
			return fmt.Errorf("%s is corrupt (%v) and could not be moved aside: %w", path, err, merr)
		}
		return &CorruptError{Path: path, MovedTo: moved, Err: err}
	}
	return nil
}

// WriteJSON atomically writes v as indented JSON with mode 0600.
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(data, '\n'), 0o600)
}

// ReplaceJSON is WriteJSON without waiting for the disk (see ReplaceFile): for what does not
// outlive a crash of the machine anyway (the processes it names, figures kept for display).
func ReplaceJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return ReplaceFile(path, append(data, '\n'), 0o600)
}
