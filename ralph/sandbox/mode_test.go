package sandbox

import "testing"

func TestSkipsPermissions(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want bool
	}{
		{[]string{"claude", "--dangerously-skip-permissions"}, true},
		{[]string{"/usr/local/bin/claude", "--permission-mode", "bypassPermissions"}, true},
		{[]string{"claude", "--permission-mode", "plan"}, false},
		{[]string{"codex", "--dangerously-bypass-approvals-and-sandbox"}, true},
		{[]string{"codex", "--full-auto"}, true},
		{[]string{"codex", "-a", "never"}, true},
		{[]string{"gemini", "--yolo"}, true},
		{[]string{"gemini"}, false},
		{[]string{"sh", "-c", "claude --dangerously-skip-permissions"}, false},
		{nil, false},
	} {
		if got := SkipsPermissions(c.argv); got != c.want {
			t.Errorf("SkipsPermissions(%q) = %v, want %v", c.argv, got, c.want)
		}
	}
}

func TestDecide(t *testing.T) {
	yolo, plain := []string{"claude", "--dangerously-skip-permissions"}, []string{"claude"}
	for _, c := range []struct {
		name        string
		mode        Mode
		argv        []string
		unsupported string
		want        Decision
	}{
		{"auto confines an agent that skips permissions", Auto, yolo, "", Decision{Confine: true}},
		{"auto leaves one that asks", Auto, plain, "", Decision{}},
		{"on confines any", On, plain, "", Decision{Confine: true}},
		{"off never", Off, yolo, "", Decision{}},
		{"auto where it cannot: unsandboxed, said", Auto, yolo, "no bwrap", Decision{Unsandboxed: "no bwrap"}},
		{"required where it cannot: refused", Required, plain, "no bwrap", Decision{Refuse: "sandbox required but unavailable: no bwrap"}},
	} {
		if got := Decide(c.mode, c.argv, c.unsupported); got != c.want {
			t.Errorf("%s: Decide = %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestParseModeAndNet(t *testing.T) {
	if m, err := ParseMode(""); err != nil || m != Auto {
		t.Errorf(`ParseMode("") = %q, %v`, m, err)
	}
	if _, err := ParseMode("sometimes"); err == nil {
		t.Error("ParseMode took a mode that is none")
	}
	n, err := ParseNet("allow=api.anthropic.com:443, 127.0.0.1:8080")
	if err != nil || n.Kind != NetAllow || len(n.Allow) != 2 || n.String() != "allow=api.anthropic.com:443,127.0.0.1:8080" {
		t.Errorf("ParseNet = %+v, %v", n, err)
	}
	for _, bad := range []string{"none=x", "closed", "open=1"} {
		if _, err := ParseNet(bad); err == nil {
			t.Errorf("ParseNet(%q) took it", bad)
		}
	}
}

func TestLaunchRoundTrip(t *testing.T) {
	l := Launch{WorkDir: "/w", InPlace: true, StateDir: "/s", Box: "/s/ralph/w/box", EgressLog: "/s/logs/w.egress.jsonl",
		Net: Net{Kind: NetAllow, Allow: []string{"h:1"}}}
	args := l.Prefix("/bin/swarm")
	got, err := ParseLaunch(append(args[2:], "agent", "--yolo"))
	if err != nil || got.WorkDir != "/w" || !got.InPlace || got.Box != l.Box || got.Net.String() != "allow=h:1" || len(got.Argv) != 2 {
		t.Errorf("ParseLaunch(Prefix) = %+v, %v", got, err)
	}
	if _, err := ParseLaunch([]string{"--workdir", "rel", "--", "x"}); err == nil {
		t.Error("a relative work directory was taken")
	}
}
