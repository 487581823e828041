package ralph

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Qwen Code runs Claude Code's hooks, under Claude Code's names and with Claude Code's input,
// but has no flag for a settings file of a run's own. It reads a system defaults file, the
// lowest of its settings, at the path QWEN_CODE_SYSTEM_DEFAULTS_PATH names, and adds the
// hooks of every settings file together: an iteration's agent is given a defaults file of
// its own there, holding swarm's hooks beside whatever the defaults file it would have read
// holds, so that the user's settings, the project's and the machine's all still apply.

// IsQwen reports whether cmd runs Qwen Code.
func IsQwen(cmd []string) bool {
	return len(cmd) > 0 && filepath.Base(cmd[0]) == "qwen"
}

// QwenDefaults is the system defaults file Qwen Code is given for its hooks.
func (d Dir) QwenDefaults() string { return filepath.Join(d.AgentBox(), "qwen-system-defaults.json") }

// qwenDefaultsMax bounds the machine's defaults file read: settings are a few kilobytes.
const qwenDefaultsMax = 1 << 20

// qwenDefaults is the system defaults file a worker's Qwen Code would read, read whole; ok is
// false when it is there but cannot be read as a JSON object (Qwen Code takes comments too):
// then the agent keeps it and gets no hooks, rather than lose its settings.
type qwenDefaults struct {
	settings map[string]any
	bad      bool
}

// QwenUserDefaults reads the system defaults file the worker's environment points Qwen Code
// at: QWEN_CODE_SYSTEM_DEFAULTS_PATH, or system-defaults.json beside its system settings
// (QWEN_CODE_SYSTEM_SETTINGS_PATH, or /etc/qwen-code/settings.json).
func QwenUserDefaults(envFile string) qwenDefaults {
	getenv := EnvFileGetenv(envFile)
	path := getenv("QWEN_CODE_SYSTEM_DEFAULTS_PATH")
	if path == "" {
		sys := FirstOf(getenv("QWEN_CODE_SYSTEM_SETTINGS_PATH"), "/etc/qwen-code/settings.json")
		path = filepath.Join(filepath.Dir(sys), "system-defaults.json")
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return qwenDefaults{}
	}
	if err != nil {
		return qwenDefaults{bad: true}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, qwenDefaultsMax+1))
	var settings map[string]any
	if err != nil || len(data) > qwenDefaultsMax || json.Unmarshal(data, &settings) != nil {
		return qwenDefaults{bad: true}
	}
	return qwenDefaults{settings: settings}
}

// qwenHookSettings is the defaults file: the machine's, with a hook that runs rec at every
// event swarm reads added to the hooks it has.
func qwenHookSettings(rec []string, base map[string]any) []byte {
	var ours struct {
		Hooks map[string][]any `json:"hooks"`
	}
	// Its permission requests are recorded, never held: whether Qwen Code takes a hook's
	// decision on one is not known, and a hold it ignored would stall it for nothing.
	_ = json.Unmarshal(claudeHookSettings(rec, 0, ""), &ours)
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	hooks, _ := out["hooks"].(map[string]any)
	merged := map[string]any{}
	for k, v := range hooks {
		merged[k] = v
	}
	for ev, groups := range ours.Hooks {
		have, _ := merged[ev].([]any)
		merged[ev] = append(append([]any{}, have...), groups...)
	}
	out["hooks"] = merged
	data, _ := json.MarshalIndent(out, "", "  ")
	return append(data, '\n')
}
