package egress

import (
	"net"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// agentHosts are the model APIs each known agent talks to, and the variables that move them.
// Only what the agent needs to answer: its telemetry, error reporting and update checks are
// left out, so a sandboxed agent cannot send the project's code to them.
var agentHosts = map[string]struct {
	hosts []string
	vars  []string
}{
	"claude": {hosts: []string{"api.anthropic.com:443"}, vars: []string{"ANTHROPIC_BASE_URL"}},
	// Codex signs in with a ChatGPT account (chatgpt.com, and auth.openai.com to refresh the
	// sign-in) or with an API key (api.openai.com).
	"codex": {hosts: []string{"api.openai.com:443", "chatgpt.com:443", "auth.openai.com:443"},
		vars: []string{"OPENAI_BASE_URL"}},
	// The Gemini API, and Google's token endpoint for a Google account's sign-in.
	"gemini": {hosts: []string{"generativelanguage.googleapis.com:443", "oauth2.googleapis.com:443"},
		vars: []string{"GOOGLE_GEMINI_BASE_URL"}},
	// opencode speaks to many providers; these are its own gateway (OpenCode Zen) and the two
	// providers it picks first when their keys are set.
	"opencode": {hosts: []string{"opencode.ai:443", "api.anthropic.com:443", "api.openai.com:443"},
		vars: []string{"ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"}},
	// Qwen Code: a qwen.ai account (chat.qwen.ai signs in, portal.qwen.ai answers) or an
	// Alibaba Cloud DashScope key (mainland and international endpoints); any other
	// OpenAI-compatible API through OPENAI_BASE_URL.
	"qwen": {hosts: []string{"chat.qwen.ai:443", "portal.qwen.ai:443", "dashscope.aliyuncs.com:443",
		"dashscope-intl.aliyuncs.com:443"}, vars: []string{"OPENAI_BASE_URL"}},
	// Copilot CLI: GitHub's API for the account and its Copilot token, and the Copilot API
	// under githubcopilot.com (api., api.individual., api.business., ...); a model of one's
	// own through COPILOT_PROVIDER_BASE_URL.
	"copilot": {hosts: []string{"api.github.com:443", "*.githubcopilot.com:443"},
		vars: []string{"COPILOT_PROVIDER_BASE_URL"}},
	// Crush: the providers its documented API-key variables name first.
	"crush": {hosts: []string{"api.anthropic.com:443", "api.openai.com:443", "generativelanguage.googleapis.com:443"}},
}

// DefaultAllow is the allowlist a sandboxed agent gets when the user names none: the model
// APIs of a known agent (claude, codex, gemini, opencode, qwen, copilot, crush: the command's
// name, a path to it is read by its last element), and the host of each base-URL variable the
// agent reads that env sets (a gateway, or a local fake API in tests). An unknown agent gets
// nothing: its caller must have the user name the hosts.
func DefaultAllow(agent string, env func(string) string) []string {
	known, ok := agentHosts[strings.ToLower(filepath.Base(strings.TrimSpace(agent)))]
	if !ok {
		return nil
	}
	out := append([]string(nil), known.hosts...)
	for _, v := range known.vars {
		if e, ok := baseURLEntry(env(v)); ok && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// baseURLEntry is the HOST:PORT entry of a base URL such as https://gateway.example.com/v1,
// the port its scheme implies when it names none. Anything else reads as no entry: a
// variable the agent itself would not use names no host to allow.
func baseURLEntry(raw string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Hostname() == "" {
		return "", false
	}
	port := u.Port()
	switch {
	case port != "":
	case strings.EqualFold(u.Scheme, "https"):
		port = "443"
	case strings.EqualFold(u.Scheme, "http"):
		port = "80"
	default:
		return "", false
	}
	e := net.JoinHostPort(u.Hostname(), port)
	if _, err := parseEntry(e); err != nil {
		return "", false
	}
	return e, true
}
