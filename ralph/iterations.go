package ralph

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/swarm-dev/swarm/ralph/cost"
	"github.com/swarm-dev/swarm/state"
)

// iterations.jsonl: one JSON object per finished iteration, for scripts and the summary.

// IterationRecord is one line of iterations.jsonl.
type IterationRecord struct {
	RunID      string        `json:"runId"`
	Iteration  int           `json:"iteration"`
	Agent      string        `json:"agent"`
	StartedAt  string        `json:"startedAt"`
	EndedAt    string        `json:"endedAt"`
	DurationMs int64         `json:"durationMs"`
	ExitCode   *int          `json:"exitCode"`
	EndReason  string        `json:"endReason"`
	Error      string        `json:"error,omitempty"` // the API error it ended at
	Signals    []string      `json:"signals"`
	Checks     []CheckResult `json:"checks"`
	Commits    []string      `json:"commits"`
	Tokens     *cost.Usage   `json:"tokens"`
	Cost       *float64      `json:"cost"`
	// RolledBack: the test gate reverted the iteration's commits (Commits lists them).
	RolledBack bool `json:"rolledBack,omitempty"`
	// Waited is what the loop waited since the iteration before ended (a backoff, a usage
	// limit) and while this one's agent waited for a person.
	Waited *Waits `json:"waited,omitempty"`
	// LastLines are a failed iteration's last lines on the agent's screen (ralph.Failure).
	LastLines []string `json:"lastLines,omitempty"`
}

// IterationsJSONL is the loop's iteration history.
func (d Dir) IterationsJSONL() string { return filepath.Join(d.Path, "iterations.jsonl") }

// AppendIteration adds one record. Appends take turns and start on a fresh line, so a writer
// that died mid-line never merges its half with the next record.
func (d Dir) AppendIteration(r IterationRecord) error {
	if r.Signals == nil {
		r.Signals = []string{}
	}
	if r.Checks == nil {
		r.Checks = []CheckResult{}
	}
	if r.Commits == nil {
		r.Commits = []string{}
	}
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if last, ok := d.lastIteration(); ok && last.RunID == r.RunID && last.Iteration == r.Iteration {
		// Recorded already, by an end taken again because its state could not be written.
		return nil
	}
	return state.Log{Path: d.IterationsJSONL(), Max: RecordsMax}.Append(string(data))
}

// RecordsMax bounds iterations.jsonl: past it the records move to iterations.jsonl.1 and the
// file starts afresh (see state.Log), so a loop keeps its last 8 MiB of records at least
// (about 30,000 iterations: many nights), 16 MiB at most. ReadIterations reads both.
const RecordsMax = 8 << 20

// lastIteration is the last record of iterations.jsonl, read from the file's end (from the
// rotated part's when the file was just started afresh).
func (d Dir) lastIteration() (IterationRecord, bool) {
	if r, ok := lastRecordIn(d.IterationsJSONL()); ok {
		return r, true
	}
	return lastRecordIn(state.Rotated(d.IterationsJSONL()))
}

// lastRecordIn is the last record of the file at path.
func lastRecordIn(path string) (IterationRecord, bool) {
	var r IterationRecord
	f, err := os.Open(path)
	if err != nil {
		return r, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return r, false
	}
	const tail = 256 << 10
	off := max(fi.Size()-tail, 0)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil {
		return r, false
	}
	lines := bytes.Split(bytes.TrimRight(buf, "\n"), []byte("\n"))
	return r, json.Unmarshal(lines[len(lines)-1], &r) == nil && r.Iteration > 0
}

// ReadIterations returns the records in order (the rotated part's first), and how many lines
// were torn or unreadable (skipped). A loop with no finished iteration has none.
func (d Dir) ReadIterations() ([]IterationRecord, int, error) {
	data, err := state.ReadLog(d.IterationsJSONL())
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	var recs []IterationRecord
	skipped := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		var r IterationRecord
		if err := json.Unmarshal(line, &r); err != nil || r.Iteration == 0 {
			skipped++
			continue
		}
		recs = append(recs, r)
	}
	return recs, skipped, sc.Err()
}
