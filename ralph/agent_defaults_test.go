package ralph

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Each agent's defaults file is found by its own variables, and read as the agent would.
func TestUserDefaultsFollowTheAgentsVariables(t *testing.T) {
	for _, c := range []struct {
		agent                 string
		defaultsVar, settings string
		read                  func(envFile string) agentDefaults
	}{
		{"Qwen Code", "QWEN_CODE_SYSTEM_DEFAULTS_PATH", "QWEN_CODE_SYSTEM_SETTINGS_PATH", QwenUserDefaults},
		{"Gemini CLI", "GEMINI_CLI_SYSTEM_DEFAULTS_PATH", "GEMINI_CLI_SYSTEM_SETTINGS_PATH", GeminiUserDefaults},
	} {
		t.Run(c.agent, func(t *testing.T) {
			dir := t.TempDir()
			envFile := filepath.Join(dir, "env.json")
			write := func(name, data string) string {
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
					t.Fatal(err)
				}
				return p
			}
			setEnv := func(kv ...string) {
				data, _ := json.Marshal(kv)
				write("env.json", string(data))
			}
			setEnv(c.defaultsVar + "=" + filepath.Join(dir, "none.json"))
			if got := c.read(envFile); got.bad || got.settings != nil {
				t.Errorf("no file: %+v", got)
			}
			setEnv(c.defaultsVar + "=" + write("d.json", `{"model": {"name": "m"}}`))
			if got := c.read(envFile); got.bad || got.settings["model"] == nil {
				t.Errorf("a file: %+v", got)
			}
			// Beside the system settings the environment names.
			write("system-defaults.json", "// a comment the agent reads\n{}")
			setEnv(c.settings + "=" + filepath.Join(dir, "settings.json"))
			if got := c.read(envFile); !got.bad {
				t.Errorf("a file that is no JSON: %+v", got)
			}
		})
	}
}
