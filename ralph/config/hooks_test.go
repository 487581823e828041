package config

import (
	"strings"
	"testing"
)

func TestParseHook(t *testing.T) {
	h, err := ParseHook("post-iteration:./log.sh --all")
	if err != nil || h != (Hook{Type: HookPostIteration, Command: "./log.sh --all"}) {
		t.Errorf("got %+v, %v", h, err)
	}
	for spec, msg := range map[string]string{
		"post_iteration:x": "unknown hook type 'post_iteration' (valid types: pre-iteration, post-iteration, on-complete, on-stagnation, on-failure)",
		"./log.sh":         "unknown hook type './log.sh'",
		"on-complete:":     "no command after 'on-complete:'",
	} {
		if _, err := ParseHook(spec); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want %q", spec, err, msg)
		}
	}
}
