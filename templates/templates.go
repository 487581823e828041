package templates

import "embed"

// Prompt is the starter PROMPT.md for a ralph loop: minimal and direct, so the agent's context
// goes to the work.
//
//go:embed PROMPT.md
var Prompt string

// PlanPrompt and BuildPrompt are agent mode's prompts for planning a spec and building it; a
// project overrides them with ralph/PLAN_PROMPT.md and ralph/BUILD_PROMPT.md. {{spec_path}},
// {{spec_name}}, {{spec}} (the spec's text), {{plan_path}} and {{spec_id}} are filled in.
//
//go:embed PLAN_PROMPT.md
var PlanPrompt string

// BuildPrompt: see PlanPrompt.
//
//go:embed BUILD_PROMPT.md
var BuildPrompt string

// AgentsSection teaches an agent to use swarm; `swarm init` adds it to AGENTS.md or CLAUDE.md.
//
//go:embed AGENTS_SECTION.md
var AgentsSection string

// AgentsMarker is the heading by which `swarm init` finds its section in a file.
const AgentsMarker = "Process Management (swarm)"

// Sandbox holds the files `swarm init --with-sandbox` writes for running agents in Docker.
//
//go:embed sandbox
var Sandbox embed.FS

// SandboxFile is one file of the sandbox set, in the order they are written.
type SandboxFile struct {
	Name       string
	Executable bool
}

// SandboxFiles lists the sandbox set.
var SandboxFiles = []SandboxFile{
	{"sandbox.sh", true},
	{"Dockerfile.sandbox", false},
	{"setup-sandbox-network.sh", true},
	{"teardown-sandbox-network.sh", true},
	{"ORCHESTRATOR.md", false},
	{"PROMPT.md", false},
}
