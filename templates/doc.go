// Package templates holds the files swarm writes for users, embedded in the binary so that
// what a command writes is the text of the version that runs, with nothing to install
// beside it and nothing on disk to drift from it:
//
//   - Prompt, the starter PROMPT.md of a loop (swarm ralph init, swarm ralph template);
//   - PlanPrompt and BuildPrompt, agent mode's prompts for planning and building a spec,
//     which a project overrides with its own ralph/PLAN_PROMPT.md and ralph/BUILD_PROMPT.md;
//   - AgentsSection, the section that teaches an agent to use swarm, which swarm init adds
//     to AGENTS.md or CLAUDE.md and finds again by its heading (AgentsMarker);
//   - Sandbox and SandboxFiles, what swarm init --with-sandbox writes for running agents in
//     Docker, in the order it writes them.
//
// The package is text and nothing else: it reads no file, runs nothing and imports no other
// package of the module, so both the loop (package ralph, for agent mode's prompts) and the
// CLI can use it without either depending on the other. Filling in a template's
// placeholders ({{spec_path}} and the like) is its user's business.
package templates
