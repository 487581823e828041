package config

import (
	"path/filepath"
	"strings"
	"testing"
)

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
		"[loop]\nlimit_headroom = 100\n":                        `:2: limit_headroom: expected a percentage from 0 (none) to 99, got 100`,
		"[loop]\non_dangerous = \"yes\"\n":                      `:2: on_dangerous: expected "ask" or "no", got "yes"`,
	}
	for content, msg := range cases {
		root := projectRoot(t, content)
		_, err := Load(root).Loop()
		if err == nil || !strings.Contains(err.Error(), filepath.Join(root, ProjectConfigName)+msg) {
			t.Errorf("%q: %v\nwant ...%s", content, err, msg)
		}
	}
}
