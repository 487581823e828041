package config

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestPathsUserFirstThenProject(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	if got := Paths(project); len(got) != 0 {
		t.Fatalf("no files yet, got %q", got)
	}
	user := filepath.Join(home, ".config", "swarm", "config.toml")
	write(t, user, "[spawn]\ncommand = \"claude --verbose\"\n")
	write(t, filepath.Join(project, ProjectConfigName), "[spawn]\ncommand = [\"codex\"]\n")
	allowForTest(t, filepath.Join(project, ProjectConfigName))
	if got, want := Paths(project), []string{user, filepath.Join(project, ProjectConfigName)}; !reflect.DeepEqual(got, want) {
		t.Errorf("Paths = %q; want %q", got, want)
	}
	if cmd, err := Load(project).SpawnCommand(); err != nil || !reflect.DeepEqual(cmd, []string{"codex"}) {
		t.Errorf("SpawnCommand = %q, %v; the project's should win", cmd, err)
	}
	if cmd, err := Load(t.TempDir()).SpawnCommand(); err != nil || !reflect.DeepEqual(cmd, []string{"claude", "--verbose"}) {
		t.Errorf("SpawnCommand outside the project = %q, %v; want the user's", cmd, err)
	}
	// XDG_CONFIG_HOME, when set, is where the user's file is.
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	if got := UserConfigPath(); got != filepath.Join(xdg, "swarm", "config.toml") {
		t.Errorf("UserConfigPath with XDG_CONFIG_HOME = %q", got)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
