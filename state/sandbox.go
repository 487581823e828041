package state

import "path/filepath"

// SandboxInfo is how a worker's agent is confined (see ralph/sandbox).
type SandboxInfo struct {
	// Kind is "bwrap" for an agent that runs inside bubblewrap, "none" for one that runs
	// unconfined although the sandbox was wanted (Why says why).
	Kind string `json:"kind"`
	// Net is "open", "none" or "allow"; Allow lists HOST[:PORT] for "allow".
	Net   string   `json:"net,omitempty"`
	Allow []string `json:"allow,omitempty"`
	Why   string   `json:"why,omitempty"`
}

// Sandboxed reports whether the agent runs confined.
func (s *SandboxInfo) Sandboxed() bool { return s != nil && s.Kind != "" && s.Kind != "none" }

// SandboxCachePath is a sandboxed worker's own caches (its agent's ~/.cache, ~/.npm, Go's
// and Cargo's downloads): written by the agent, shared with no one, kept across its starts.
func (d *Dir) SandboxCachePath(name string) string {
	return filepath.Join(d.Root, "cache", name)
}

// EgressPath is where a sandboxed worker's egress proxy writes the connections it refused.
func (d *Dir) EgressPath(name string) string {
	return filepath.Join(d.Root, "logs", name+".egress.jsonl")
}
