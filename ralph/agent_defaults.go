package ralph

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Qwen Code and Gemini CLI (Qwen Code began as Gemini CLI) read a system defaults file, the
// lowest of their settings, at a path an environment variable names, and add the hooks of all
// their settings files together. An iteration's agent is given a defaults file of its own
// there: the one it would have read, with swarm's hooks added to its own.

// agentDefaults is the system defaults file a worker's agent would read, read whole; bad is
// set when it is there but cannot be read as a JSON object (both agents take comments too):
// then the agent keeps it and gets no hooks, rather than lose its settings.
type agentDefaults struct {
	settings map[string]any
	bad      bool
}

// agentDefaultsMax bounds the machine's defaults file read: settings are a few kilobytes.
const agentDefaultsMax = 1 << 20

// userDefaults reads the defaults file a worker's agent would read: the one the variable
// defaultsVar names in the worker's environment (its env file), or system-defaults.json beside
// the agent's system settings (the file settingsVar names, or sysSettings).
func userDefaults(envFile, defaultsVar, settingsVar, sysSettings string) agentDefaults {
	getenv := EnvFileGetenv(envFile)
	path := getenv(defaultsVar)
	if path == "" {
		path = filepath.Join(filepath.Dir(FirstOf(getenv(settingsVar), sysSettings)), "system-defaults.json")
	}
	return readAgentDefaults(path)
}

// readAgentDefaults reads the defaults file at path; none there is an empty one.
func readAgentDefaults(path string) agentDefaults {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return agentDefaults{}
	}
	if err != nil {
		return agentDefaults{bad: true}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, agentDefaultsMax+1))
	var settings map[string]any
	if err != nil || len(data) > agentDefaultsMax || json.Unmarshal(data, &settings) != nil {
		return agentDefaults{bad: true}
	}
	return agentDefaults{settings: settings}
}

// withHooks is the defaults file base with ours added after the hooks it has, event by event.
func withHooks(base map[string]any, ours map[string][]any) []byte {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	hooks, _ := out["hooks"].(map[string]any)
	merged := map[string]any{}
	for k, v := range hooks {
		merged[k] = v
	}
	for ev, groups := range ours {
		have, _ := merged[ev].([]any)
		merged[ev] = append(append([]any{}, have...), groups...)
	}
	out["hooks"] = merged
	data, _ := json.MarshalIndent(out, "", "  ")
	return append(data, '\n')
}
