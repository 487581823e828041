package screen

import (
	"strings"
	"testing"
)

// Captures taken with `capture-pane -e` carry SGR codes; the verdict must not change.
func TestClassifyANSI(t *testing.T) {
	idle := "\x1b[2m\x1b[38;5;244m" + rule + "\x1b[39m\x1b[22m\r\n" +
		"\x1b[1m❯\x1b[22m\u00a0\x1b[K\r\n" +
		"\x1b[2m" + rule + "\x1b[22m\r\n" +
		"  \x1b[38;2;255;107;128m⏵⏵ bypass permissions on\x1b[39m (shift+tab to cycle)\r\n"
	if got, want := Classify(idle, nil), ready("claude"); got != want {
		t.Errorf("idle: Classify = %+v, want %+v", got, want)
	}
	working := "\x1b[38;5;174m✶\x1b[39m \x1b[38;5;174mDeciphering…\x1b[39m \x1b[2m(12s)\x1b[22m\n\n" + idle
	if got, want := Classify(working, nil), busy("claude"); got != want {
		t.Errorf("working: Classify = %+v, want %+v", got, want)
	}
	trust := "\x1b[1m Do you trust the files in this folder?\x1b[22m\n\n \x1b[36m❯\x1b[39m 1. Yes, proceed\n   2. No, exit\n"
	if got, want := Classify(trust, nil), dialog("trust-folder", "claude"); got != want {
		t.Errorf("trust: Classify = %+v, want %+v", got, want)
	}
	// Colouring must not change either hash.
	plain := strings.Join(Lines(idle), "\n")
	if ActivityHash(idle) != ActivityHash(plain) || SubstantiveHash(idle) != SubstantiveHash(plain) {
		t.Error("hash of coloured screen differs from the plain one")
	}
}

func TestLines(t *testing.T) {
	got := Lines("\x1b[1mtitle\x1b[0m   \r\n❯\u00a0\n❯\u00a0typed\u00a0\n  \n\nlast\t\n\n \u00a0\n")
	want := []string{"title", "❯", "❯\u00a0typed", "", "", "last"}
	if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
		t.Errorf("Lines = %q, want %q", got, want)
	}
	if got := Lines("\n \n\u00a0"); len(got) != 0 {
		t.Errorf("Lines(blank) = %q, want none", got)
	}
	idle := Lines(readScreen(t, "claude-2.1.197/10_idle_seeded_bypass.txt"))
	if idle[len(idle)-3] != "❯" {
		t.Errorf("idle prompt line = %q, want the NBSP trimmed", idle[len(idle)-3])
	}
	typed := Lines(readScreen(t, "claude-2.1.197/11_prompt_typed.txt"))
	if typed[len(typed)-3] != "❯\u00a0please make the file now" {
		t.Errorf("typed prompt line = %q, want the inner NBSP kept", typed[len(typed)-3])
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{
		Unknown: "unknown", Ready: "ready", Busy: "busy", Dialog: "dialog", 9: "Kind(9)",
	} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

func TestDialogDescription(t *testing.T) {
	if got, want := DialogDescription("trust-folder"), `the trust-folder dialog ("Do you trust the files in this folder?")`; got != want {
		t.Errorf("DialogDescription(trust-folder) = %q, want %q", got, want)
	}
	// Every name the classifier can produce gets a quoted question.
	for _, r := range dialogRules {
		d := DialogDescription(r.name)
		if !strings.Contains(d, r.name) || !strings.Contains(d, `("`) {
			t.Errorf("DialogDescription(%q) = %q: want the name and the quoted question", r.name, d)
		}
	}
	if got := DialogDescription("mystery"); got != "the mystery dialog" {
		t.Errorf("DialogDescription(mystery) = %q", got)
	}
	if got := DialogDescription(""); got != "a dialog" {
		t.Errorf(`DialogDescription("") = %q`, got)
	}
}
