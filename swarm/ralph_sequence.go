package swarm

import "github.com/swarm-dev/swarm/ralph"

// Loops that run one after another in the same worker: a chain's steps, an agent's specs. The
// first loop starts like any other; these record what comes after it.

// writeAgentPrompt puts an agent's first prompt where its loop reads it.
func writeAgentPrompt(ld ralph.Dir, prompt string) error {
	if err := ld.WriteAgentPrompt(prompt); err != nil {
		return fail("cannot write %s: %w", ld.AgentPromptPath(), err)
	}
	return nil
}

// saveSequence records what runs after the first loop: a chain's steps, an agent's specs.
func (o ralphSpawnOptions) saveSequence(ld ralph.Dir) error {
	if o.chain != nil {
		if err := ld.SaveChain(o.chain); err != nil {
			return fail("cannot write the chain's state: %w", err)
		}
	}
	if o.agent != nil {
		if err := ld.SaveAgentMode(o.agent); err != nil {
			return fail("cannot write the agent's state: %w", err)
		}
	}
	return nil
}
