package cost

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Codex writes one rollout per session: <CODEX_HOME>/sessions/YYYY/MM/DD/rollout-*.jsonl. Its
// first line (session_meta) names the directory it ran in; every model response adds a
// token_usage_record line with that response's usage, and turn_context lines name the
// model. Its input count includes the cached tokens, which are priced as cache reads.

// CodexHome is where Codex keeps its files for an agent with environment getenv.
func CodexHome(getenv func(string) string) string {
	return agentDir(getenv, "CODEX_HOME", ".codex")
}

// codexLine is what a rollout line says that matters here.
type codexLine struct {
	Timestamp time.Time `json:"timestamp"`
	Type      string    `json:"type"`
	Payload   struct {
		Cwd        string `json:"cwd"`
		Model      string `json:"model"`
		ResponseID string `json:"response_id"`
		Usage      *struct {
			Input      int64 `json:"input_tokens"`
			Cached     int64 `json:"cached_input_tokens"`
			CacheWrite int64 `json:"cache_write_input_tokens"`
			Output     int64 `json:"output_tokens"`
		} `json:"usage"`
	} `json:"payload"`
}

// ReadCodexRollout sums the usage of the responses inside w, and returns the directory the
// session ran in.
func ReadCodexRollout(path string, w Window) (ByModel, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	out, seen := ByModel{}, map[string]bool{}
	cwd, model := "", ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 256<<10), 64<<20)
	for sc.Scan() {
		text := sc.Text()
		if !strings.Contains(text, `"session_meta"`) && !strings.Contains(text, `"turn_context"`) &&
			!strings.Contains(text, `"token_usage_record"`) {
			continue
		}
		var l codexLine
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		switch l.Type {
		case "session_meta":
			cwd = l.Payload.Cwd
		case "turn_context":
			model = l.Payload.Model
		case "token_usage_record":
			u := l.Payload.Usage
			if u == nil || !w.holds(l.Timestamp) || seen[l.Payload.ResponseID] && l.Payload.ResponseID != "" {
				continue
			}
			seen[l.Payload.ResponseID] = true
			cur := out[model]
			cur.Add(Usage{Input: u.Input - u.Cached, CacheRead: u.Cached, CacheWrite: u.CacheWrite, Output: u.Output})
			out[model] = cur
		}
	}
	return out, cwd, sc.Err()
}

// CodexIteration is the token use of the one Codex session that ran in cwd during w; when
// none or several did, it is not known (ok false) rather than another session's.
func CodexIteration(home, cwd string, w Window) (ByModel, bool) {
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	var found ByModel
	n := 0
	for _, p := range rolloutsSince(home, w) {
		use, sessionCwd, err := ReadCodexRollout(p, w)
		if err != nil || sessionCwd != cwd || len(use) == 0 {
			continue
		}
		found, n = use, n+1
	}
	return found, n == 1
}

// rolloutsSince lists the rollouts written during w: in the day directories the window
// touches (named by local date, UTC checked too), modified since it began.
func rolloutsSince(home string, w Window) []string {
	end := w.To
	if end.IsZero() {
		end = time.Now()
	}
	from := w.From
	if from.Before(end.AddDate(0, 0, -31)) {
		// An open window still only looks at the last month's directories.
		from = end.AddDate(0, 0, -31)
	}
	seen := map[string]bool{}
	var out []string
	for day := from.Add(-24 * time.Hour); !day.After(end.Add(24 * time.Hour)); day = day.Add(24 * time.Hour) {
		for _, d := range []time.Time{day.Local(), day.UTC()} {
			dir := filepath.Join(home, "sessions", d.Format("2006"), d.Format("01"), d.Format("02"))
			files, _ := filepath.Glob(filepath.Join(dir, "rollout-*.jsonl"))
			for _, p := range files {
				if fi, err := os.Stat(p); err == nil && !fi.ModTime().Before(from) && !seen[p] {
					seen[p] = true
					out = append(out, p)
				}
			}
		}
	}
	return out
}
