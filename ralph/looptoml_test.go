package ralph

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
	ls, err := ResolveLoop(root, LoopFlags{Base: root})
	if err != nil {
		t.Fatal(err)
	}
	want := LoopSettings{Checks: []string{"command:make test", filepath.Join(root, "verify.sh")},
		Hooks:           []Hook{{HookPostIteration, "./log.sh"}, {HookPostIteration, "echo done"}, {HookOnComplete, "notify-send done"}},
		StagnationLimit: 5, BuiltinMarkers: false, CheckTimeout: 120, HookTimeout: 60}
	if !reflect.DeepEqual(ls, want) {
		t.Errorf("got  %+v\nwant %+v", ls, want)
	}
	// Flags win: a list given replaces the file's (hooks per type), a value its value.
	three := 3
	ls, err = ResolveLoop(root, LoopFlags{Base: root, Checks: []string{"exit-code"}, StagnationLimit: &three,
		Hooks: []Hook{{HookOnComplete, "echo flag"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ls.Checks, []string{"exit-code"}) || ls.StagnationLimit != 3 ||
		!reflect.DeepEqual(ls.Hooks, []Hook{{HookPostIteration, "./log.sh"}, {HookPostIteration, "echo done"}, {HookOnComplete, "echo flag"}}) {
		t.Errorf("flags did not win: %+v", ls)
	}
}

func TestResolveLoopDefaults(t *testing.T) {
	ls, err := ResolveLoop(projectRoot(t, "-"), LoopFlags{})
	want := LoopSettings{StagnationLimit: DefaultStagnationLimit, BuiltinMarkers: true, CheckTimeout: 600, HookTimeout: 60}
	if err != nil || !reflect.DeepEqual(ls, want) {
		t.Errorf("got %+v, %v", ls, err)
	}
}

func TestLoopTableMistakes(t *testing.T) {
	cases := map[string]string{
		"[loop]\nchecks = \"command:x\"\nstagnaton_limit = 2\n": `:3: unknown key "stagnaton_limit" in [loop]`,
		"[loop]\nchecks = [\"comand:x\"]\n":                     `:2: checks: invalid --check 'comand:x'`,
		"[loop]\nchecks = [1]\n":                                `:2: checks: expected an array of checker strings, got an array`,
		"[loop]\nbuiltin_markers = \"no\"\n":                    `:2: builtin_markers: expected true or false, got "no"`,
		"[loop]\ncheck_timeout = 0\n":                           `:2: check_timeout: must be at least 1`,
		"[loop.hooks]\npost_iter = [\"x\"]\n":                   `:2: unknown hook type "post_iter" in [loop.hooks] (valid: pre_iteration, post_iteration, on_complete, on_stagnation, on_failure)`,
		"[loop.hooks]\non_failure = [\"\"]\n":                   `:2: hooks.on_failure: empty command`,
		"[loop]\nhooks = 3\n":                                   `:2: hooks: expected a table of hook lists, got 3`,
	}
	for content, msg := range cases {
		root := projectRoot(t, content)
		_, err := ResolveLoop(root, LoopFlags{})
		if err == nil || !strings.Contains(err.Error(), filepath.Join(root, ProjectConfigName)+msg) {
			t.Errorf("%q: %v\nwant ...%s", content, err, msg)
		}
	}
}
