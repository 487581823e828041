package remote

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseAddress(t *testing.T) {
	cases := []struct{ in, dest, port string }{
		{"box", "box", ""},
		{"me@box.example.com", "me@box.example.com", ""},
		{"me@10.0.0.7:2222", "me@10.0.0.7", "2222"},
		{"10.0.0.7:22", "10.0.0.7", "22"},
		{"[::1]:2200", "::1", "2200"},
		{"me@[fe80::1]", "me@fe80::1", ""},
	}
	for _, c := range cases {
		e, err := ParseAddress(c.in)
		if err != nil || e.Dest != c.dest || e.Port != c.port {
			t.Errorf("ParseAddress(%q) = %+v, %v; want %s port %q", c.in, e, err, c.dest, c.port)
		}
	}
	for _, bad := range []string{"", "@box", "box:0", "box:99999", "box:ssh", "-oProxyCommand=x", "a b", "me@", "box;rm"} {
		if _, err := ParseAddress(bad); err == nil {
			t.Errorf("ParseAddress(%q) accepted", bad)
		}
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"box", "gpu-1", "h_2", "a.b"} {
		if err := CheckName(ok); err != nil {
			t.Errorf("CheckName(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "local", "-x", "a/b", "a@b", strings.Repeat("x", 33)} {
		if err := CheckName(bad); err == nil {
			t.Errorf("CheckName(%q) accepted", bad)
		}
	}
}

func TestRegistryKeepsHostsAndWhatWasSeen(t *testing.T) {
	reg := RegistryOf(t.TempDir())
	if reg.Any() {
		t.Fatal("an empty state directory has hosts")
	}
	if _, err := reg.Get("box"); !errors.Is(err, ErrNoHost) {
		t.Fatalf("Get of a host never added: %v", err)
	}
	for _, n := range []string{"b", "a"} {
		if err := reg.Put(Host{Name: n, Address: n + ".example.com"}); err != nil {
			t.Fatal(err)
		}
	}
	if !reg.Any() || len(reg.All(nil)) != 2 || reg.All(nil)[0].Name != "a" {
		t.Fatalf("All = %+v", reg.All(nil))
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := reg.Answered("a", now, now, json.RawMessage(`[{"name":"w1"}]`), "1.0"); err != nil {
		t.Fatal(err)
	}
	if err := reg.Failed("a", now.Add(time.Minute), errors.New("no route")); err != nil {
		t.Fatal(err)
	}
	s := reg.Seen("a")
	var workers bytes.Buffer
	_ = json.Compact(&workers, s.Workers)
	if s.At != "2026-01-02T03:04:05Z" || s.Error != "no route" || workers.String() != `[{"name":"w1"}]` {
		t.Fatalf("a failed try lost what was seen before: %+v", s)
	}
	if err := reg.Remove("a"); err != nil {
		t.Fatal(err)
	}
	if reg.Seen("a").At != "" || len(reg.All(nil)) != 1 {
		t.Fatal("a removed host is still there")
	}
}

func TestQuoteArgsMakesEachOneShellWord(t *testing.T) {
	cases := map[string]string{
		"ls": "ls", "--format=json": "--format=json", "": "''", "a b": "'a b'",
		"it's": `'it'\''s'`, "$(rm -rf /)": "'$(rm -rf /)'", "w1@box": "w1@box",
	}
	for in, want := range cases {
		if got := QuoteArgs([]string{in}); got != want {
			t.Errorf("QuoteArgs(%q) = %s, want %s", in, got, want)
		}
	}
	if got := QuoteArgs([]string{"ls", "--format", "a b"}); got != "ls --format 'a b'" {
		t.Errorf("QuoteArgs joins %s", got)
	}
	if got := SwarmWord("~/.local/bin/swarm"); got != `"$HOME"/.local/bin/swarm` {
		t.Errorf("SwarmWord of a path under ~ = %s", got)
	}
}

func TestWorkspaceIsNamedAfterTheRepository(t *testing.T) {
	a := WorkspaceOf("/s", "git@github.com:me/project.git")
	b := WorkspaceOf("/s", "https://github.com/me/project")
	if !strings.HasPrefix(a, "/s/workspaces/project-") || !strings.HasPrefix(b, "/s/workspaces/project-") || a == b {
		t.Fatalf("workspaces %s and %s", a, b)
	}
	if WorkspaceOf("/s", "/srv/git/x.git") != WorkspaceOf("/s", "/srv/git/x.git") {
		t.Fatal("the same repository got two workspaces")
	}
}
