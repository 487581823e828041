package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestProfiles(t *testing.T) {
	root := projectRoot(t, `[agents.planner]
cmd = ["claude", "--dangerously-skip-permissions"]
prompt_file = "PLAN.md"
checks = ["exit-code"]
inactivity_timeout = 30
`)
	os.WriteFile(filepath.Join(root, "PLAN.md"), []byte("plan"), 0o644)
	ps, err := Load(root).Profiles()
	want := AgentProfile{Name: "planner", Cmd: []string{"claude", "--dangerously-skip-permissions"},
		PromptFile: filepath.Join(root, "PLAN.md"), Checks: []string{"exit-code"}, InactivityTimeout: 30}
	if err != nil || !reflect.DeepEqual(ps["planner"], want) {
		t.Errorf("%+v %v", ps, err)
	}
	for content, msg := range map[string]string{
		"[agents.a]\ncmd = [\"x\"]\n":                                   "prompt_file is missing",
		"[agents.a]\nprompt_file = \"PLAN.md\"\n":                       "cmd is missing",
		"[agents.a]\ncmd = [\"x\"]\nprompt_file = \"NONE.md\"\n":        "prompt file not found",
		"[agents.a]\ncmd = [\"x\"]\nprompt_file = \"PLAN.md\"\nfoo = 1": `unknown key "foo"`,
		"[agents.a]\ncmd = 3\nprompt_file = \"PLAN.md\"\n":              "cmd: bad value 3",
	} {
		root := projectRoot(t, content)
		os.WriteFile(filepath.Join(root, "PLAN.md"), []byte("plan"), 0o644)
		if _, err := Load(root).Profiles(); err == nil || !strings.Contains(err.Error(), "[agents.a]: "+msg) {
			t.Errorf("%q: %v, want %q", content, err, msg)
		}
	}
}
