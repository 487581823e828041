package ralph

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph/config"
)

func TestResolveLoopFromSwarmToml(t *testing.T) {
	root := projectRoot(t, `[loop]
checks = ["command:make test", "./verify.sh"]
stagnation_limit = 5
builtin_markers = false
check_timeout = 120

[loop.hooks]
post_iteration = ["./log.sh", "echo done"]
on_complete = ["notify-send done"]
`)
	os.WriteFile(filepath.Join(root, "verify.sh"), []byte("#!/bin/sh\n"), 0o755)
	ls, err := ResolveLoop(config.Load(root), LoopFlags{Base: root})
	if err != nil {
		t.Fatal(err)
	}
	if len(ls.Sources) != 1 || ls.Sources[0].Ignored || filepath.Base(ls.Sources[0].Path) != config.ProjectConfigName {
		t.Errorf("the file it came from: %+v", ls.Sources)
	}
	ls.Sources = nil
	want := LoopSettings{Checks: []string{"command:make test", filepath.Join(root, "verify.sh")},
		Hooks:           []config.Hook{{Type: config.HookPostIteration, Command: "./log.sh"}, {Type: config.HookPostIteration, Command: "echo done"}, {Type: config.HookOnComplete, Command: "notify-send done"}},
		StagnationLimit: 5, BuiltinMarkers: false, CheckTimeout: 120, HookTimeout: 60, OnDangerous: config.DangerousAsk}
	if !reflect.DeepEqual(ls, want) {
		t.Errorf("got  %+v\nwant %+v", ls, want)
	}
	// Flags win: a list given replaces the file's (hooks per type), a value its value.
	three := 3
	ls, err = ResolveLoop(config.Load(root), LoopFlags{Base: root, Checks: []string{"exit-code"}, StagnationLimit: &three,
		Hooks: []config.Hook{{Type: config.HookOnComplete, Command: "echo flag"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ls.Checks, []string{"exit-code"}) || ls.StagnationLimit != 3 ||
		!reflect.DeepEqual(ls.Hooks, []config.Hook{{Type: config.HookPostIteration, Command: "./log.sh"}, {Type: config.HookPostIteration, Command: "echo done"}, {Type: config.HookOnComplete, Command: "echo flag"}}) {
		t.Errorf("flags did not win: %+v", ls)
	}
}

func TestResolveLoopDefaults(t *testing.T) {
	ls, err := ResolveLoop(config.Load(projectRoot(t, "-")), LoopFlags{})
	want := LoopSettings{StagnationLimit: DefaultStagnationLimit, BuiltinMarkers: true, CheckTimeout: 600, HookTimeout: 60,
		OnDangerous: config.DangerousAsk, Sources: []config.Source{}}
	if err != nil || !reflect.DeepEqual(ls, want) {
		t.Errorf("got %+v, %v", ls, err)
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
	write(t, filepath.Join(project, config.ProjectConfigName), `[loop]
checks = ["command:make test"]
check_timeout = 22
[loop.hooks]
post_iteration = ["echo project-post"]
`)
	allowForTest(t, filepath.Join(project, config.ProjectConfigName))
	ls, err := ResolveLoop(config.Load(project), LoopFlags{})
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

// projectRoot makes a fresh repository root (a directory holding .git, where the search for
// swarm.toml stops) with swarm.toml holding content, unless content is "-".
func projectRoot(t *testing.T, content string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if content != "-" {
		if err := os.WriteFile(filepath.Join(root, config.ProjectConfigName), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		// The user who runs the tests has a config directory of the test's own, which
		// allowed the file.
		t.Setenv("XDG_CONFIG_HOME", t.TempDir())
		allowForTest(t, filepath.Join(root, config.ProjectConfigName))
	}
	return root
}

// allowForTest records consent to a project file in the user's config directory.
func allowForTest(t *testing.T, path string) {
	t.Helper()
	if _, err := config.Allow(path, time.Now()); err != nil {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestResolveLoopHeadroomAndDangerous(t *testing.T) {
	root := projectRoot(t, "[loop]\nlimit_headroom = 15\non_dangerous = \"no\"\n")
	ls, err := ResolveLoop(config.Load(root), LoopFlags{Base: root})
	if err != nil || ls.LimitHeadroom != 15 || ls.OnDangerous != config.DangerousNo {
		t.Fatalf("from swarm.toml: %+v, %v", ls, err)
	}
	five, ask := 5, config.DangerousAsk
	ls, err = ResolveLoop(config.Load(root), LoopFlags{Base: root, LimitHeadroom: &five, OnDangerous: &ask})
	if err != nil || ls.LimitHeadroom != 5 || ls.OnDangerous != config.DangerousAsk {
		t.Errorf("flags did not win: %+v, %v", ls, err)
	}
}
