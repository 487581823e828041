package ralph

import (
	"encoding/json"
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

// QwenUserDefaults reads the system defaults file the worker's environment points Qwen Code
// at: QWEN_CODE_SYSTEM_DEFAULTS_PATH, or system-defaults.json beside its system settings
// (QWEN_CODE_SYSTEM_SETTINGS_PATH, or /etc/qwen-code/settings.json).
func QwenUserDefaults(envFile string) agentDefaults {
	return userDefaults(envFile, "QWEN_CODE_SYSTEM_DEFAULTS_PATH", "QWEN_CODE_SYSTEM_SETTINGS_PATH", "/etc/qwen-code/settings.json")
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
	return withHooks(base, ours.Hooks)
}
