package screen

import (
	"slices"
	"testing"
)

func TestPermissionKeysAnswerTheToolPermissionDialog(t *testing.T) {
	shown := Classify(readScreen(t, "claude-2.1.332/32_bash_permission_prompt.txt"), nil)
	if keys, ok := PermissionKeys(shown, true); !ok || !slices.Equal(keys, []string{"1"}) {
		t.Fatalf("yes on %+v: %q %v, want the first option", shown, keys, ok)
	}
	if keys, ok := PermissionKeys(shown, false); !ok || !slices.Equal(keys, []string{"Escape"}) {
		t.Fatalf("no on %+v: %q %v, want Escape", shown, keys, ok)
	}
}

func TestPermissionKeysAnswerNoOtherScreen(t *testing.T) {
	for _, st := range []State{
		{Kind: Ready, Agent: "claude"},
		{Kind: Busy, Agent: "claude"},
		{Kind: Dialog, Dialog: "trust-folder", Agent: "claude"},
		{Kind: Dialog, Dialog: "tool-permission", Agent: "aider"},
	} {
		if keys, ok := PermissionKeys(st, true); ok {
			t.Errorf("%+v answered with %q", st, keys)
		}
	}
}
