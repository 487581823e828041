package remote

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/state"
)

// A spawn on a host leaves a receipt there, named by the id its bundle carries: the sender
// whose connection dropped before the host's answer came asks for it (`swarm host __spawned
// ID`) and says what is true: started, not started, or not known. Asking for a receipt the
// host does not have leaves one that says the spawn was given up, which a bundle that
// arrives late finds and obeys: "not started" stays true once it was said.

// What became of a spawn on its host.
const (
	SpawnSpawning = "spawning" // the host's swarm is at it
	SpawnStarted  = "started"
	SpawnRefused  = "refused" // the host's swarm ended without starting it (Said says why)
	SpawnGivenUp  = "given_up"
	// SpawnInterrupted is a spawn whose swarm ended before it said how it went: the worker
	// may or may not have started.
	SpawnInterrupted = "interrupted"
)

// Receipt is what became of one spawn on the host.
type Receipt struct {
	ID     string `json:"id"`
	Worker string `json:"worker,omitempty"`
	State  string `json:"state"`
	// PID is the host's swarm at the spawn, while it is at it.
	PID  int    `json:"pid,omitempty"`
	Said string `json:"said,omitempty"`
	At   string `json:"at"`
}

// ErrGivenUp is a spawn its sender gave up before it arrived.
var ErrGivenUp = errors.New("the machine that sent this spawn gave it up (its connection was lost): nothing was started")

// receiptsKept is how long a receipt stays on the host.
const receiptsKept = 7 * 24 * time.Hour

var validSpawnID = regexp.MustCompile(`^[0-9a-f]{16,64}$`)

// NewSpawnID names one spawn.
func NewSpawnID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func receiptPath(root, id string) (string, error) {
	if !validSpawnID.MatchString(id) {
		return "", fmt.Errorf("invalid spawn id '%s'", id)
	}
	return filepath.Join(root, "spawns", id+".json"), nil
}

// BeginSpawn records on the host whose state directory is root that the spawn id of worker
// begins, by this process; ErrGivenUp when its sender gave it up already.
func BeginSpawn(root, id, worker string) error {
	path, err := receiptPath(root, id)
	if err != nil {
		return err
	}
	forgetOldReceipts(filepath.Dir(path), time.Now())
	r := Receipt{ID: id, Worker: worker, State: SpawnSpawning, PID: os.Getpid(), At: stamp(time.Now())}
	if created, err := createReceipt(path, r); err != nil || created {
		return err
	}
	return ErrGivenUp
}

// EndSpawn records how the spawn id ended: started, or refused for the reason said.
func EndSpawn(root, id string, started bool, said string) error {
	path, err := receiptPath(root, id)
	if err != nil {
		return err
	}
	var r Receipt
	if err := state.ReadJSON(path, &r); err != nil {
		return err
	}
	r.State, r.PID, r.Said, r.At = SpawnRefused, 0, said, stamp(time.Now())
	if started {
		r.State, r.Said = SpawnStarted, ""
	}
	return state.WriteJSON(path, r)
}

// AskSpawn is what became of the spawn id, for its sender: a spawn the host never got is
// given up here and then, so that it never starts later.
func AskSpawn(root, id string) (Receipt, error) {
	path, err := receiptPath(root, id)
	if err != nil {
		return Receipt{}, err
	}
	for range 2 {
		var r Receipt
		err := state.ReadJSON(path, &r)
		if err == nil {
			if r.State == SpawnSpawning && !alive(r.PID) {
				r.State = SpawnInterrupted
			}
			return r, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return Receipt{}, err
		}
		r = Receipt{ID: id, State: SpawnGivenUp, At: stamp(time.Now())}
		if created, err := createReceipt(path, r); err != nil || created {
			return r, err
		}
		// The spawn began in between: read what it says.
	}
	return Receipt{}, fmt.Errorf("the receipt of spawn %s keeps changing", id)
}

// createReceipt writes r at path unless a receipt is there already (then created is false):
// written aside and linked in, it is never seen half written.
func createReceipt(path string, r Receipt) (created bool, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, err
	}
	tmp := path + ".new-" + NewSpawnID()
	if err := state.WriteJSON(tmp, r); err != nil {
		return false, err
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, path)
	if errors.Is(err, os.ErrExist) {
		return false, nil
	}
	return err == nil, err
}

// forgetOldReceipts removes the receipts of spawns long past.
func forgetOldReceipts(dir string, now time.Time) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > receiptsKept {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// alive says whether the process pid still runs.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
