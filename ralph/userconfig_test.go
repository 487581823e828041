package ralph

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestConfigFilesUserFirstThenProject(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	if got := ConfigFiles(project); len(got) != 0 {
		t.Fatalf("no files yet, got %q", got)
	}
	user := filepath.Join(home, ".config", "swarm", "config.toml")
	write(t, user, "[spawn]\ncommand = \"claude --verbose\"\n")
	write(t, filepath.Join(project, ProjectConfigName), "[spawn]\ncommand = [\"codex\"]\n")
	allowForTest(t, filepath.Join(project, ProjectConfigName))
	if got, want := ConfigFiles(project), []string{user, filepath.Join(project, ProjectConfigName)}; !reflect.DeepEqual(got, want) {
		t.Errorf("ConfigFiles = %q; want %q", got, want)
	}
	if cmd, err := DefaultCommand(project); err != nil || !reflect.DeepEqual(cmd, []string{"codex"}) {
		t.Errorf("DefaultCommand = %q, %v; the project's should win", cmd, err)
	}
	if cmd, err := DefaultCommand(t.TempDir()); err != nil || !reflect.DeepEqual(cmd, []string{"claude", "--verbose"}) {
		t.Errorf("DefaultCommand outside the project = %q, %v; want the user's", cmd, err)
	}
	// XDG_CONFIG_HOME, when set, is where the user's file is.
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	if got := UserConfigPath(); got != filepath.Join(xdg, "swarm", "config.toml") {
		t.Errorf("UserConfigPath with XDG_CONFIG_HOME = %q", got)
	}
}

// The project's [loop] checks replace the user's as a list; hooks per type; the rest per key.
func TestLoopSettingsLayered(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	write(t, filepath.Join(home, ".config", "swarm", "config.toml"), `[loop]
checks = ["command:true"]
stagnation_limit = 7
check_timeout = 11
[loop.hooks]
pre_iteration = ["echo user-pre"]
post_iteration = ["echo user-post"]
`)
	write(t, filepath.Join(project, ProjectConfigName), `[loop]
checks = ["command:make test"]
check_timeout = 22
[loop.hooks]
post_iteration = ["echo project-post"]
`)
	allowForTest(t, filepath.Join(project, ProjectConfigName))
	ls, err := ResolveLoop(project, LoopFlags{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ls.Checks, []string{"command:make test"}) || ls.StagnationLimit != 7 || ls.CheckTimeout != 22 {
		t.Errorf("checks %q, stagnation %d, check timeout %d", ls.Checks, ls.StagnationLimit, ls.CheckTimeout)
	}
	var hooks []string
	for _, h := range ls.Hooks {
		hooks = append(hooks, h.Type+":"+h.Command)
	}
	if want := []string{"pre-iteration:echo user-pre", "post-iteration:echo project-post"}; !reflect.DeepEqual(hooks, want) {
		t.Errorf("hooks %q; want %q", hooks, want)
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
