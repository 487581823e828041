package ralph

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/swarm-dev/swarm/state"
)

// Supervision is the policy over a loop: resurrection of a dead monitor, crash
// escalation, hang detection, test-gated rollback of bad commits and the DONE-file stop rules.
// Its settings travel with the loop state so every monitor (including a resurrected one)
// applies the same policy.

// SupervisionConfig is the supervision policy for one loop.
type SupervisionConfig struct {
	Enabled               bool   `json:"enabled"`
	MaxFailures           int    `json:"max_retries"`
	RetryBackoffSeconds   int    `json:"retry_backoff_seconds,omitempty"` // 0: min(2^(n-1), 300)
	HangTimeoutSeconds    int    `json:"hang_timeout_seconds"`
	IterationTimeout      int    `json:"iteration_timeout_seconds,omitempty"`
	TestCommand           string `json:"test_command,omitempty"`
	RollbackOnTestFailure bool   `json:"rollback_on_test_failure"`
	Push                  bool   `json:"push,omitempty"`
	Webhook               string `json:"webhook,omitempty"`
}

// DefaultSupervision is the policy when nothing is configured.
func DefaultSupervision() SupervisionConfig {
	return SupervisionConfig{Enabled: true, MaxFailures: MaxConsecutiveFailures, HangTimeoutSeconds: 300}
}

// SupervisionState is what supervision records about a loop: regent-state.json.
type SupervisionState struct {
	PID                 int      `json:"pid"`
	Iteration           int      `json:"iteration"`
	ConsecutiveErrors   int      `json:"consecutive_errors"`
	LastOutputAt        string   `json:"last_output_at"`
	LastCommit          string   `json:"last_commit"`
	TotalCostUSD        float64  `json:"total_cost_usd"`
	Resurrections       int      `json:"resurrections"`
	Rollbacks           int      `json:"rollbacks"`
	Hangs               int      `json:"hangs"`
	Escalations         int      `json:"escalations"`
	RecentResurrections []string `json:"recent_resurrections,omitempty"`
}

// SupervisionStatePath is the supervision state file of a loop.
func (d Dir) SupervisionStatePath() string { return filepath.Join(d.Path, "regent-state.json") }

// DoneFile is the marker an agent creates to say the whole task is complete.
func (d Dir) DoneFile() string { return filepath.Join(d.Path, "DONE") }

// WaitFile is the marker an agent creates to stop the loop without a restart (waiting on
// something outside).
func (d Dir) WaitFile() string { return filepath.Join(d.Path, "WAIT_WITHOUT_RESTART") }

// LoadSupervision reads the supervision state; a missing file is an empty state.
func (d Dir) LoadSupervision() SupervisionState {
	var rs SupervisionState
	_ = state.ReadJSON(d.SupervisionStatePath(), &rs)
	return rs
}

// UpdateSupervision changes the supervision state under the loop lock.
func (d Dir) UpdateSupervision(fn func(*SupervisionState)) error {
	return d.WithLock(func() error {
		rs := d.LoadSupervision()
		before, _ := json.Marshal(&rs)
		fn(&rs)
		// Supervision's figures, for display and its counters: not worth a wait for the disk
		// at every iteration of every loop.
		return writeChanged(d.SupervisionStatePath(), before, &rs, state.ReplaceJSON)
	})
}

// ExitWaitWithoutRestart is the exit code by which an agent stops the loop without failing.
const ExitWaitWithoutRestart = 42

// BoxDoneFile is where a confined agent's SWARM_DONE_FILE points: in its box, the one
// place of the loop's it may write.
func (d Dir) BoxDoneFile() string { return filepath.Join(d.AgentBox(), "DONE") }

// DoneMarker reports whether a DONE file is present (the loop's, or its agent's in the box);
// a DONE directory is an error.
func (d Dir) DoneMarker() (bool, error) {
	_, present, err := d.FoundDone()
	return present, err
}

// FoundDone is DoneMarker, and the DONE file found.
func (d Dir) FoundDone() (string, bool, error) {
	for _, path := range []string{d.DoneFile(), d.BoxDoneFile()} {
		fi, err := os.Stat(path)
		switch {
		case err == nil && fi.IsDir():
			return path, false, fmt.Errorf("DONE is a directory: %s", path)
		case err == nil:
			return path, true, nil
		case !errors.Is(err, os.ErrNotExist):
			return path, false, fmt.Errorf("cannot check %s: %w", path, err)
		}
	}
	return d.DoneFile(), false, nil
}

// RemoveDone takes the DONE files away and returns the ones it removed.
func (d Dir) RemoveDone() []string {
	var removed []string
	for _, path := range []string{d.DoneFile(), d.BoxDoneFile()} {
		if os.Remove(path) == nil {
			removed = append(removed, path)
		}
	}
	return removed
}

func (d Dir) WaitMarker() bool {
	_, err := os.Stat(d.WaitFile())
	return err == nil
}
