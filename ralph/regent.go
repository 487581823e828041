package ralph

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/state"
)

// The Regent is the supervision policy over a loop: resurrection of a dead monitor, crash
// escalation, hang detection, test-gated rollback of bad commits and the DONE-file stop rules.
// Its settings travel with the loop state so every monitor (including a resurrected one)
// applies the same policy.

// RegentConfig is the Regent's policy for one loop.
type RegentConfig struct {
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

// DefaultRegent is the policy when nothing is configured.
func DefaultRegent() RegentConfig {
	return RegentConfig{Enabled: true, MaxFailures: MaxConsecutiveFailures, HangTimeoutSeconds: 300}
}

// RegentState is what the Regent records about a loop: regent-state.json.
type RegentState struct {
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

// RegentStatePath is the Regent's state file of a loop.
func (d Dir) RegentStatePath() string { return filepath.Join(d.Path, "regent-state.json") }

// DoneFile is the marker an agent creates to say the whole task is complete.
func (d Dir) DoneFile() string { return filepath.Join(d.Path, "DONE") }

// WaitFile is the marker an agent creates to stop the loop without a restart (waiting on
// something outside).
func (d Dir) WaitFile() string { return filepath.Join(d.Path, "WAIT_WITHOUT_RESTART") }

// LoadRegent reads the Regent's state; a missing file is an empty state.
func (d Dir) LoadRegent() RegentState {
	var rs RegentState
	_ = state.ReadJSON(d.RegentStatePath(), &rs)
	return rs
}

// UpdateRegent changes the Regent's state under the loop lock.
func (d Dir) UpdateRegent(fn func(*RegentState)) error {
	return d.WithLock(func() error {
		rs := d.LoadRegent()
		fn(&rs)
		return state.WriteJSON(d.RegentStatePath(), &rs)
	})
}

// ExitWaitWithoutRestart is the exit code by which an agent stops the loop without failing.
const ExitWaitWithoutRestart = 42

// doneMarker reports whether the DONE file is present; a DONE directory is an error.
func (d Dir) doneMarker() (bool, error) {
	fi, err := os.Stat(d.DoneFile())
	if err == nil {
		if fi.IsDir() {
			return false, fmt.Errorf("DONE is a directory: %s", d.DoneFile())
		}
		return true, nil
	}
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return false, fmt.Errorf("cannot check %s: %v", d.DoneFile(), err)
}

func (d Dir) waitMarker() bool {
	_, err := os.Stat(d.WaitFile())
	return err == nil
}

// Escalation is the JSON body posted to the webhook when a loop gives up.
type Escalation struct {
	Worker    string   `json:"worker"`
	Iteration int      `json:"iteration"`
	Reason    string   `json:"reason"`
	Status    string   `json:"status"`
	LastLines []string `json:"last_lines"`
	Time      string   `json:"time"`
}

// PostEscalation sends e to url with a short timeout.
func PostEscalation(url string, e Escalation) error {
	body, err := json.Marshal(e)
	if err != nil {
		return err
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("webhook answered %s", resp.Status)
	}
	return nil
}

// ProjectConfigName is the project file whose [regent] table configures the Regent.
const ProjectConfigName = "swarm.toml"

// FindProjectConfig looks for swarm.toml in dir and its parents up to the repository root (the
// first directory holding .git) or the filesystem root.
func FindProjectConfig(dir string) string {
	for {
		p := filepath.Join(dir, ProjectConfigName)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// RegentFile is the [regent] table of swarm.toml; nil fields were not set.
type RegentFile struct {
	Enabled               *bool
	RollbackOnTestFailure *bool
	TestCommand           *string
	MaxRetries            *int
	RetryBackoffSeconds   *int
	HangTimeoutSeconds    *int
}

// ParseProjectConfig reads the [regent] table of a swarm.toml. It understands the TOML that
// table needs (comments, tables, strings, integers, booleans) and rejects anything else,
// unknown keys and values of the wrong type with the file and line.
func ParseProjectConfig(path string) (*RegentFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rf := &RegentFile{}
	table := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	line := 0
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", path, line, fmt.Sprintf(format, args...))
	}
	for sc.Scan() {
		line++
		raw := strings.TrimSpace(stripComment(sc.Text()))
		if raw == "" {
			continue
		}
		if strings.HasPrefix(raw, "[") {
			if !strings.HasSuffix(raw, "]") || strings.HasPrefix(raw, "[[") {
				return nil, bad("malformed table header %q", raw)
			}
			table = strings.TrimSpace(raw[1 : len(raw)-1])
			continue
		}
		key, val, ok := strings.Cut(raw, "=")
		if !ok {
			return nil, bad("expected key = value, got %q", raw)
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if table != "regent" {
			// Other tables belong to other parts of swarm; only [regent] is read here.
			continue
		}
		switch key {
		case "enabled":
			b, err := parseBool(val)
			if err != nil {
				return nil, bad("enabled: %v", err)
			}
			rf.Enabled = &b
		case "rollback_on_test_failure":
			b, err := parseBool(val)
			if err != nil {
				return nil, bad("rollback_on_test_failure: %v", err)
			}
			rf.RollbackOnTestFailure = &b
		case "test_command":
			s, err := parseString(val)
			if err != nil {
				return nil, bad("test_command: %v", err)
			}
			rf.TestCommand = &s
		case "max_retries", "retry_backoff_seconds", "hang_timeout_seconds":
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				return nil, bad("%s: expected a non-negative integer, got %s", key, val)
			}
			switch key {
			case "max_retries":
				if n < 1 {
					return nil, bad("max_retries: must be at least 1")
				}
				rf.MaxRetries = &n
			case "retry_backoff_seconds":
				rf.RetryBackoffSeconds = &n
			default:
				rf.HangTimeoutSeconds = &n
			}
		default:
			return nil, bad("unknown key %q in [regent] (known: enabled, rollback_on_test_failure, test_command, max_retries, retry_backoff_seconds, hang_timeout_seconds)", key)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return rf, nil
}

// stripComment removes a # comment that is not inside a quoted string.
func stripComment(s string) string {
	inQuote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inQuote != 0:
			if c == '\\' && inQuote == '"' {
				i++
			} else if c == inQuote {
				inQuote = 0
			}
		case c == '"' || c == '\'':
			inQuote = c
		case c == '#':
			return s[:i]
		}
	}
	return s
}

func parseBool(v string) (bool, error) {
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("expected true or false, got %s", v)
}

func parseString(v string) (string, error) {
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		return v[1 : len(v)-1], nil
	}
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		s, err := strconv.Unquote(v)
		if err != nil {
			return "", fmt.Errorf("bad string %s", v)
		}
		return s, nil
	}
	return "", fmt.Errorf("expected a quoted string, got %s", v)
}
