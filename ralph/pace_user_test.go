package ralph

import (
	"os"
	"path/filepath"
	"testing"
)

func TestUserStatusLineIsTheHighestSettingsThatSetsOne(t *testing.T) {
	conf, project := t.TempDir(), t.TempDir()
	getenv := func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return conf
		}
		return ""
	}
	put := func(path, text string) {
		_ = os.MkdirAll(filepath.Dir(path), 0o700)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got := UserStatusLine(getenv, project); got != "" {
		t.Errorf("none set: %q", got)
	}
	put(filepath.Join(conf, "settings.json"), `{"statusLine":{"type":"command","command":"user-line"}}`)
	if got := UserStatusLine(getenv, project); got != "user-line" {
		t.Errorf("the user's: %q", got)
	}
	put(filepath.Join(project, ".claude", "settings.json"), `{"statusLine":{"type":"command","command":"project-line"}}`)
	if got := UserStatusLine(getenv, project); got != "project-line" {
		t.Errorf("the project's over the user's: %q", got)
	}
	// swarm's own is never taken, nor a broken file: the next one down is.
	put(filepath.Join(project, ".claude", "settings.local.json"), `{"statusLine":{"type":"command","command":"/bin/swarm agent-event --status-line /x"}}`)
	if got := UserStatusLine(getenv, project); got != "project-line" {
		t.Errorf("swarm's own taken: %q", got)
	}
	put(filepath.Join(project, ".claude", "settings.local.json"), `{"statusLine":`)
	if got := UserStatusLine(getenv, project); got != "project-line" {
		t.Errorf("a broken file: %q", got)
	}
}
