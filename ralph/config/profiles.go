package config

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Agent profiles ([agents.NAME] in swarm.toml): what a chain step runs. A profile names the
// agent's command, its prompt and its own checkers and stop rules.

// How the prompt reaches the agent (a profile's prompt_mode, a loop's PromptMode).
const (
	PromptType  = "type"  // pasted into the agent's input once it shows its prompt
	PromptStdin = "stdin" // given on standard input (headless agents: claude -p, codex exec -)
)

// AgentProfile is one [agents.NAME] table, resolved (paths absolute).
type AgentProfile struct {
	Name              string   `json:"name"`
	Cmd               []string `json:"cmd"`
	PromptFile        string   `json:"prompt_file"`
	Checks            []string `json:"checks,omitempty"`
	DonePatterns      []string `json:"done_patterns,omitempty"`
	InactivityTimeout int      `json:"inactivity_timeout,omitempty"`
	PromptMode        string   `json:"prompt_mode,omitempty"`
}

var profileKeys = []string{"checks", "cmd", "done_patterns", "inactivity_timeout", "max_iterations", "prompt_file", "prompt_mode"}

// Profiles is the [agents.*] tables of the files; a later file's profile replaces an
// earlier one's of the same name.
func (c *Config) Profiles() (map[string]AgentProfile, error) {
	var out map[string]AgentProfile
	for _, f := range c.files {
		found, err := f.profiles()
		if err != nil {
			return nil, err
		}
		for name, p := range found {
			if out == nil {
				out = map[string]AgentProfile{}
			}
			out[name] = p
		}
	}
	return out, nil
}

// profiles reads the file's [agents.*] tables.
func (f *file) profiles() (map[string]AgentProfile, error) {
	if f.err != nil {
		return nil, f.err
	}
	var agents map[string]map[string]any
	if err := f.table("agents", &agents); err != nil {
		return nil, err
	}
	if err := f.allows("[agents."); err != nil {
		return nil, err
	}
	out := map[string]AgentProfile{}
	for name, raw := range agents {
		p, err := profile(name, raw, filepath.Dir(f.path))
		if err != nil {
			return nil, fmt.Errorf("%s: [agents.%s]: %w", f.path, name, err)
		}
		out[name] = p
	}
	return out, nil
}

func profile(name string, raw map[string]any, base string) (AgentProfile, error) {
	p := AgentProfile{Name: name}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := p.set(k, raw[k], base); err != nil {
			return p, err
		}
	}
	switch {
	case len(p.Cmd) == 0:
		return p, fmt.Errorf(`cmd is missing (as in cmd = ["claude", "--dangerously-skip-permissions"])`)
	case p.PromptFile == "":
		return p, fmt.Errorf(`prompt_file is missing`)
	}
	if _, err := os.Stat(p.PromptFile); err != nil {
		return p, fmt.Errorf("prompt file not found: %s", p.PromptFile)
	}
	return p, nil
}

func (p *AgentProfile) set(k string, v any, base string) error {
	var ok bool
	switch k {
	case "cmd":
		p.Cmd, ok = stringList(v)
	case "prompt_file":
		var s string
		if s, ok = v.(string); ok {
			if !filepath.IsAbs(s) {
				s = filepath.Join(base, s)
			}
			p.PromptFile = s
		}
	case "checks":
		if p.Checks, ok = stringList(v); ok {
			for i, c := range p.Checks {
				parsed, err := ParseCheck(c, base)
				if err != nil {
					return err
				}
				p.Checks[i] = parsed.Spec
			}
		}
	case "done_patterns":
		p.DonePatterns, ok = stringList(v)
	case "inactivity_timeout":
		var n int64
		n, ok = v.(int64)
		p.InactivityTimeout = int(n)
		ok = ok && n >= 1
	case "prompt_mode":
		p.PromptMode, ok = v.(string)
		ok = ok && (p.PromptMode == PromptType || p.PromptMode == PromptStdin)
	case "max_iterations":
		// The chain gives each step its iterations; accepted for profiles used elsewhere.
		_, ok = v.(int64)
	default:
		return fmt.Errorf("unknown key %q (known: %s)", k, strings.Join(profileKeys, ", "))
	}
	if !ok {
		return fmt.Errorf("%s: bad value %s", k, tomlText(v))
	}
	return nil
}
