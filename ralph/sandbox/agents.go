package sandbox

import "path/filepath"

// AgentFiles are the places in the home directory an agent writes its own configuration,
// credentials and sessions: what it needs read-write inside the sandbox. Env names a variable
// that moves them (CLAUDE_CONFIG_DIR, CODEX_HOME); Copies are files it rewrites by renaming
// a new copy over them, which a bind mount cannot take: the sandbox gets a copy of each, and
// what the agent writes there is dropped with the sandbox.
type AgentFiles struct {
	Dirs   []string // relative to the home directory
	Env    string
	Copies []string // relative to the home directory
}

// agentFiles by the agent's executable name.
var agentFiles = map[string]AgentFiles{
	"claude": {Dirs: []string{".claude"}, Env: "CLAUDE_CONFIG_DIR", Copies: []string{".claude.json"}},
	"codex":  {Dirs: []string{".codex"}, Env: "CODEX_HOME"},
	"gemini": {Dirs: []string{".gemini"}},
	"qwen":   {Dirs: []string{".qwen"}},
	// Copilot unpacks the code its executable carries into ~/.cache/copilot/pkg at its first
	// start, and each update's.
	"copilot":  {Dirs: []string{".copilot", ".config/github-copilot", ".cache/copilot"}},
	"opencode": {Dirs: []string{".local/share/opencode", ".config/opencode", ".local/state/opencode", ".cache/opencode"}},
	"crush":    {Dirs: []string{".local/share/crush", ".config/crush"}},
}

// FilesOf is what the agent run by argv0 writes of its own; other agents' files are hidden
// from it (their credentials are no business of this one).
func FilesOf(argv0 string) AgentFiles { return agentFiles[filepath.Base(argv0)] }

// otherAgents is every agent's files but argv0's: hidden inside the sandbox.
func otherAgents(argv0 string) []string {
	own := filepath.Base(argv0)
	var out []string
	for name, f := range agentFiles {
		if name != own {
			out = append(out, f.Dirs...)
			out = append(out, f.Copies...)
		}
	}
	return out
}

// secrets are the places in the home directory that hold credentials of the user's: hidden
// from every agent.
var secrets = []string{
	".ssh", ".aws", ".gnupg", ".config/gh", ".netrc", ".git-credentials", ".config/git/credentials",
	".docker", ".kube", ".azure", ".config/gcloud", ".npmrc", ".pypirc", ".password-store",
	".vault-token", ".terraform.d", ".config/hub", ".cargo/credentials", ".cargo/credentials.toml",
	".local/share/keyrings", ".pki", ".mozilla", ".config/google-chrome", ".config/chromium",
	".bash_history", ".zsh_history", ".python_history", ".psql_history", ".mysql_history",
}
