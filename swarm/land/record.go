package land

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/swarm-dev/swarm/state"
)

// The states of a worker's landing, as recorded and shown.
const (
	Queued      = "queued"
	Testing     = "testing"
	Landed      = "landed"
	NeedsRebase = "needs_rebase"
	BreaksTests = "breaks_tests"
)

// Record is where a worker's branch stands in the queue: $SWARM_DIR/land/WORKER.json.
type Record struct {
	Worker string `json:"worker"`
	State  string `json:"state"`
	Branch string `json:"branch"`
	Target string `json:"target"`
	// BranchCommit is the branch's commit the last attempt took: a branch sent back re-enters
	// the queue of --all only once it moved on from it.
	BranchCommit string `json:"branch_commit,omitempty"`
	// TestedCommit is the merge commit the test command ran on; Commit the one the target
	// moved to (the same, once landed).
	TestedCommit string   `json:"tested_commit,omitempty"`
	Commit       string   `json:"commit,omitempty"`
	TestCommand  string   `json:"test_command,omitempty"`
	Reason       string   `json:"reason,omitempty"`
	Conflicts    []string `json:"conflicts,omitempty"`
	OutputFile   string   `json:"output_file,omitempty"`
	// Pushed names the remote branch the landed commit was pushed to (--push).
	Pushed string `json:"pushed,omitempty"`
	// ResumedLoop is when the worker's loop was resumed with what failed (--send-back).
	ResumedLoop string `json:"resumed_loop,omitempty"`
	Queued      string `json:"queued,omitempty"`
	Updated     string `json:"updated,omitempty"`
}

// SentBack reports a branch that did not land and waits for its worker to fix it.
func (r *Record) SentBack() bool {
	return r != nil && (r.State == NeedsRebase || r.State == BreaksTests)
}

// Root is the directory of landing records, the scratch worktrees and the locks.
func Root(d *state.Dir) string { return filepath.Join(d.Root, "land") }

func recordPath(d *state.Dir, worker string) string {
	return filepath.Join(Root(d), worker+".json")
}

// OutputPath is the file the failing test output of worker's last attempt is kept in.
func OutputPath(d *state.Dir, worker string) string {
	return filepath.Join(Root(d), worker+".test-output.txt")
}

// LoadRecord reads worker's record; nil (and no error) when there is none.
func LoadRecord(d *state.Dir, worker string) (*Record, error) {
	var r Record
	if err := state.ReadJSON(recordPath(d, worker), &r); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("landing record of %s: %w", worker, err)
	}
	return &r, nil
}

// save writes r atomically, stamped with the time.
func save(d *state.Dir, r *Record) error {
	if err := os.MkdirAll(Root(d), 0o700); err != nil {
		return err
	}
	r.Updated = time.Now().UTC().Format(time.RFC3339)
	if r.Queued == "" {
		r.Queued = r.Updated
	}
	return state.WriteJSON(recordPath(d, r.Worker), r)
}
