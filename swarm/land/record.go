package land

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/state/eventlog"
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
	// State is empty only in the result of a worker passed over that was never offered.
	State  string `json:"state,omitempty"`
	Branch string `json:"branch"`
	Target string `json:"target,omitempty"`
	// Repo is the repository the branch lands in: whoever reads the record can look at the
	// target there.
	Repo string `json:"repo,omitempty"`
	// Clone says the branch is a clone's (Candidate.Clone): its agent sees the target as
	// origin's, after a fetch.
	Clone bool `json:"clone,omitempty"`
	// BranchCommit is the branch's commit the last attempt took: a branch sent back re-enters
	// the queue of --all only once it moved on from it.
	BranchCommit string `json:"branch_commit,omitempty"`
	// TestedCommit is the merge commit the test command ran on; Commit the one the target
	// moved to (the same, once landed).
	TestedCommit string `json:"tested_commit,omitempty"`
	Commit       string `json:"commit,omitempty"`
	// MoveFrom is set while the target is moved from this commit to TestedCommit: written
	// before the move and cleared after it, so that a record left with it tells from the
	// target whether the move happened (see Settle).
	MoveFrom    string   `json:"move_from,omitempty"`
	TestCommand string   `json:"test_command,omitempty"`
	Reason      string   `json:"reason,omitempty"`
	Conflicts   []string `json:"conflicts,omitempty"`
	OutputFile  string   `json:"output_file,omitempty"`
	// OutputSize is how many bytes the test command printed; OutputCut that the file keeps only
	// their head and tail.
	OutputSize int64 `json:"output_size,omitempty"`
	OutputCut  bool  `json:"output_cut,omitempty"`
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

// save writes r atomically, stamped with the time, and tells the state directory's event log
// when it lands the branch or sends it back.
func save(d *state.Dir, r *Record) error {
	if err := os.MkdirAll(Root(d), 0o700); err != nil {
		return err
	}
	r.Updated = time.Now().UTC().Format(time.RFC3339)
	if r.Queued == "" {
		r.Queued = r.Updated
	}
	was, _ := LoadRecord(d, r.Worker)
	if err := state.WriteJSON(recordPath(d, r.Worker), r); err != nil {
		return err
	}
	if e, ok := landingEvent(was, r); ok {
		// An event that cannot be written is left out: the record says how the landing went.
		_, _ = eventlog.Log{Root: d.Root}.Append(e)
	}
	return nil
}

// landingEvent is the event of a landing record going from was (nil: none) to r: the branch
// landed, or was sent back to its worker; once per such change, whatever else is recorded.
func landingEvent(was, r *Record) (eventlog.Event, bool) {
	if was != nil && was.State == r.State {
		return eventlog.Event{}, false
	}
	switch {
	case r.State == Landed:
		return eventlog.Event{Kind: eventlog.Landed, Worker: r.Worker, Branch: r.Branch, Commit: r.Commit,
			Detail: r.Target, Reason: r.Reason}, true
	case r.SentBack():
		return eventlog.Event{Kind: eventlog.SentBack, Worker: r.Worker, Branch: r.Branch, Commit: r.BranchCommit,
			Detail: r.Target, How: r.State, Reason: r.Reason}, true
	}
	return eventlog.Event{}, false
}

// Settle is r as it stands when the run that wrote it ended before it could say how the
// landing went (killed, or unable to write the record on a full disk) and no run works on its
// repository now: a merge that was tested, or being moved onto the target, that the target
// holds is landed; otherwise the landing is queued again, saying why. A record some run is
// working on, or one that says how it went, is r itself. It writes nothing: the views show the
// truth with it, and the next run records it (Recover).
func Settle(d *state.Dir, r *Record) *Record {
	if !unsettled(r) || r.Repo == "" || state.IsLocked(lockPath(d, r.Repo)) {
		return r
	}
	return settle(r)
}

// unsettled reports a record a run left in the middle of a landing.
func unsettled(r *Record) bool { return r != nil && (r.State == Testing || r.MoveFrom != "") }

// settle is Settle once no run works on the record's repository.
func settle(r *Record) *Record {
	s := *r
	s.MoveFrom = ""
	target, err := git.ResolveCommit(r.Repo, "refs/heads/"+r.Target)
	switch {
	case r.TestedCommit != "" && err == nil && git.IsAncestor(r.Repo, r.TestedCommit, target):
		s.State, s.Commit, s.Reason = Landed, r.TestedCommit, ""
	case r.MoveFrom != "":
		s.State = Queued
		s.Reason = fmt.Sprintf("tested, not landed: the run moving %s to it ended before it moved it; run swarm land again", r.Target)
	default:
		s.State = Queued
		s.Reason = "not landed: the run that tested it ended without recording how it went; run swarm land again"
	}
	return &s
}

// Recover records c's landing as Settle finds it, under the repository's landing lock, and
// returns it (c.Record when there is nothing to settle).
func Recover(d *state.Dir, c Candidate) (*Record, error) {
	r := c.Record
	if !unsettled(r) {
		return r, nil
	}
	if err := os.MkdirAll(Root(d), 0o700); err != nil {
		return r, err
	}
	lock, ok, err := state.TryLock(lockPath(d, c.Repo))
	if err != nil || !ok {
		return r, err
	}
	defer lock.Unlock()
	s := *r
	if s.Repo == "" {
		s.Repo = c.Repo
	}
	settled := settle(&s)
	return settled, save(d, settled)
}
