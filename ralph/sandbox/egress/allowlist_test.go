package egress

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseAllowCanonical(t *testing.T) {
	a, err := ParseAllow([]string{" API.Anthropic.com.:443 ", "*.Example.com", "10.0.0.1", "[2001:DB8::1]:8443",
		"[::ffff:192.0.2.1]", "localhost:3000", "api.anthropic.com:443", "under_score.example:80"})
	if err != nil {
		t.Fatal(err)
	}
	want := "api.anthropic.com:443,*.example.com,10.0.0.1,[2001:db8::1]:8443,192.0.2.1,localhost:3000,under_score.example:80"
	if got := a.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	again, err := ParseAllow(strings.Split(a.String(), ","))
	if err != nil || again.String() != want {
		t.Errorf("String() does not read back: %q, %v", again.String(), err)
	}
	if a.Len() != 7 {
		t.Errorf("Len() = %d, want 7 (the duplicate kept once)", a.Len())
	}
}

func TestParseAllowRefuses(t *testing.T) {
	cases := []struct{ entry, why string }{
		{"", "empty"},
		{"example.com:0", "port"},
		{"example.com:65536", "port"},
		{"example.com:https", "port"},
		{"example.com:+443", "port"},
		{"example.com:", "port"},
		{"2001:db8::1", "brackets"},
		{"[2001:db8::1", "closing bracket"},
		{"[10.0.0.1]:80", "IPv6"},
		{"[fe80::1%eth0]", "IPv6"},
		{"[::1]x", "after ]"},
		{"*", "label"},
		{"*.", "no host"},
		{"a.*.example.com", "wildcard"},
		{"**.example.com", "wildcard"},
		{"exa mple.com", "not allowed"},
		{"example..com", "empty label"},
		{".example.com", "empty label"},
		{"-example.com", "hyphen"},
		{"10.0.0", "end in a number"},
		{"999.1.1.1", "end in a number"},
		{"http://example.com", "port"},
		{strings.Repeat("a", 64) + ".com", "63"},
		{strings.Repeat("a.", 127) + "com", "at most 253"},
	}
	for _, c := range cases {
		_, err := ParseAllow([]string{"api.anthropic.com:443", c.entry})
		if err == nil {
			t.Errorf("ParseAllow(%q) accepted it", c.entry)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "--sandbox-net allow: bad entry ") || !strings.Contains(msg, c.why) {
			t.Errorf("ParseAllow(%q) = %q, want a bad entry saying %q", c.entry, msg, c.why)
		}
	}
}

func TestParseAllowBounds(t *testing.T) {
	if _, err := ParseAllow(nil); err == nil || !strings.Contains(err.Error(), "names no host") {
		t.Errorf("no entries: %v", err)
	}
	many := make([]string, MaxEntries+1)
	for i := range many {
		many[i] = fmt.Sprintf("h%d.example.com", i)
	}
	if _, err := ParseAllow(many[:MaxEntries]); err != nil {
		t.Errorf("%d entries: %v", MaxEntries, err)
	}
	if _, err := ParseAllow(many); err == nil || !strings.Contains(err.Error(), "at most 64") {
		t.Errorf("%d entries: %v", len(many), err)
	}
	long := strings.Repeat("a", 300)
	_, err := ParseAllow([]string{long})
	if err == nil || len(err.Error()) > 200 {
		t.Errorf("an oversized entry's error is not short: %v", err)
	}
}

func TestAllows(t *testing.T) {
	a, err := ParseAllow([]string{"api.anthropic.com:443", "*.githubcopilot.com:443", "example.org", "127.0.0.1:8080", "[::1]:9090"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		host string
		port int
		want bool
	}{
		{"api.anthropic.com", 443, true},
		{"API.ANTHROPIC.COM.", 443, true},
		{"api.anthropic.com", 80, false},
		{"anthropic.com", 443, false},
		{"evil-api.anthropic.com", 443, false},
		{"api.anthropic.com.evil.com", 443, false},
		{"api.githubcopilot.com", 443, true},
		{"api.individual.githubcopilot.com", 443, true},
		{"githubcopilot.com", 443, false},
		{"evilgithubcopilot.com", 443, false},
		{"example.org", 1, true},
		{"example.org", 65535, true},
		{"example.org", 0, false},
		{"example.org", 65536, false},
		{"www.example.org", 80, false},
		{"127.0.0.1", 8080, true},
		{"127.0.0.1", 8081, false},
		{"::ffff:127.0.0.1", 8080, true},
		{"localhost", 8080, false},
		{"[::1]", 9090, true},
		{"::1", 9090, true},
		{"0:0::1", 9090, true},
		{"::1", 8080, false},
		{"fe80::1%lo", 9090, false},
		{"api.anthropic.com\x00", 443, false},
		{"", 443, false},
	}
	for _, c := range cases {
		if got := a.Allows(c.host, c.port); got != c.want {
			t.Errorf("Allows(%q, %d) = %v, want %v", c.host, c.port, got, c.want)
		}
	}
	if (Allowlist{}).Allows("example.org", 80) {
		t.Error("the zero Allowlist allows a host")
	}
}
