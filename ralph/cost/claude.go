package cost

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Claude Code writes one transcript per session: <config>/projects/<cwd>/<session id>.jsonl,
// one JSON object per line. Each assistant message carries the model and the API's usage; a
// message streamed in several content blocks is written once per block with the same id and
// usage, so it is counted once.

// ClaudeConfigDir is where Claude Code keeps its files for an agent with environment getenv:
// CLAUDE_CONFIG_DIR, else ~/.claude.
func ClaudeConfigDir(getenv func(string) string) string {
	return agentDir(getenv, "CLAUDE_CONFIG_DIR", ".claude")
}

// agentDir is an agent's own directory: the variable that names it, else ~/dot.
func agentDir(getenv func(string) string, variable, dot string) string {
	if d := getenv(variable); d != "" {
		return d
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, dot)
	}
	return ""
}

// ClaudeProjectDir is where the transcripts of sessions run in cwd are: the real path with
// every character other than a letter or digit turned into '-'.
func ClaudeProjectDir(config, cwd string) string {
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	enc := []byte(cwd)
	for i, c := range enc {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			enc[i] = '-'
		}
	}
	return filepath.Join(config, "projects", string(enc))
}

// claudeLine is what a transcript line says that matters here.
type claudeLine struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	RequestID string    `json:"requestId"`
	Message   *struct {
		ID    string `json:"id"`
		Model string `json:"model"`
		Usage *struct {
			Input      int64 `json:"input_tokens"`
			Output     int64 `json:"output_tokens"`
			CacheRead  int64 `json:"cache_read_input_tokens"`
			CacheWrite int64 `json:"cache_creation_input_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

// Window bounds which entries count: from its start to its end (a zero end: no end).
type Window struct {
	From, To time.Time
}

func (w Window) holds(t time.Time) bool {
	return !t.Before(w.From) && (w.To.IsZero() || !t.After(w.To))
}

// ReadClaudeTranscript sums the token use of the assistant messages in the transcript whose
// time is inside w. Lines that are not JSON (one being written) are skipped.
func ReadClaudeTranscript(path string, w Window) (ByModel, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := ByModel{}
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 256<<10), 64<<20)
	for sc.Scan() {
		if !strings.Contains(sc.Text(), `"usage"`) {
			continue
		}
		var l claudeLine
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Type != "assistant" || l.Message == nil || l.Message.Usage == nil {
			continue
		}
		if !w.holds(l.Timestamp) {
			continue
		}
		key := l.Message.ID + "/" + l.RequestID
		if l.Message.ID != "" && seen[key] {
			continue
		}
		seen[key] = true
		u := Usage{Input: l.Message.Usage.Input, Output: l.Message.Usage.Output, CacheRead: l.Message.Usage.CacheRead,
			CacheWrite: l.Message.Usage.CacheWrite}
		if u.Total() == 0 {
			// Claude Code's own notes (API errors) are "<synthetic>" messages that used nothing.
			continue
		}
		cur := out[l.Message.Model]
		cur.Add(u)
		out[l.Message.Model] = cur
	}
	return out, sc.Err()
}

// ClaudeIteration is the token use of one iteration's Claude Code session. With the session
// id swarm gave it the transcript is known exactly; without, the one transcript in the
// project written during the window is it. When several were (another agent in the same
// directory at the same time), nothing is counted rather than another session's tokens.
func ClaudeIteration(projectDir, sessionID string, w Window) (ByModel, bool) {
	if sessionID != "" {
		use, err := ReadClaudeTranscript(filepath.Join(projectDir, sessionID+".jsonl"), w)
		return use, err == nil
	}
	entries, err := os.ReadDir(projectDir)
	if err != nil {
		return nil, false
	}
	var found ByModel
	n := 0
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !strings.HasSuffix(e.Name(), ".jsonl") || info.ModTime().Before(w.From) {
			continue
		}
		use, err := ReadClaudeTranscript(filepath.Join(projectDir, e.Name()), w)
		if err != nil || len(use) == 0 {
			continue
		}
		found, n = use, n+1
	}
	return found, n == 1
}
