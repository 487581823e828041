package egress

import (
	"slices"
	"testing"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestDefaultAllow(t *testing.T) {
	none := envOf(nil)
	cases := []struct {
		agent string
		env   map[string]string
		want  []string
	}{
		{"claude", nil, []string{"api.anthropic.com:443"}},
		{"/usr/local/bin/Claude", map[string]string{"ANTHROPIC_BASE_URL": "http://127.0.0.1:4010"},
			[]string{"api.anthropic.com:443", "127.0.0.1:4010"}},
		{"claude", map[string]string{"ANTHROPIC_BASE_URL": "https://gateway.example.com/anthropic"},
			[]string{"api.anthropic.com:443", "gateway.example.com:443"}},
		{"claude", map[string]string{"ANTHROPIC_BASE_URL": "https://api.anthropic.com"},
			[]string{"api.anthropic.com:443"}},
		{"claude", map[string]string{"ANTHROPIC_BASE_URL": "not a url"}, []string{"api.anthropic.com:443"}},
		{"claude", map[string]string{"ANTHROPIC_BASE_URL": "ftp://files.example.com"}, []string{"api.anthropic.com:443"}},
		{"claude", map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1"}, []string{"api.anthropic.com:443"}},
		{"codex", map[string]string{"OPENAI_BASE_URL": "http://[::1]:8080/v1"},
			[]string{"api.openai.com:443", "chatgpt.com:443", "auth.openai.com:443", "[::1]:8080"}},
		{"gemini", map[string]string{"GOOGLE_GEMINI_BASE_URL": "http://localhost"},
			[]string{"generativelanguage.googleapis.com:443", "oauth2.googleapis.com:443", "localhost:80"}},
		{"copilot", nil, []string{"api.github.com:443", "*.githubcopilot.com:443"}},
		{"aider", map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1"}, nil},
		{"", nil, nil},
	}
	for _, c := range cases {
		got := DefaultAllow(c.agent, envOf(c.env))
		if !slices.Equal(got, c.want) {
			t.Errorf("DefaultAllow(%q, %v) = %q, want %q", c.agent, c.env, got, c.want)
		}
	}
	for agent := range agentHosts {
		hosts := DefaultAllow(agent, none)
		a, err := ParseAllow(hosts)
		if err != nil || a.Len() != len(hosts) {
			t.Errorf("%s: the default allowlist %q does not parse as itself: %v", agent, hosts, err)
		}
	}
}
