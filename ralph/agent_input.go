package ralph

import (
	"io"
	"time"
)

// ReadAgentEvent reads what an agent's hook hands the recorder on its stdin, under the names
// the loop reads: Gemini CLI's own hooks (see ReadGeminiEvent), else Claude Code's, which
// Qwen Code runs too and swarm's opencode plugin gives in the same shape.
func ReadAgentEvent(agent string, r io.Reader, now time.Time) (AgentEvent, bool) {
	if agent == "gemini" {
		return ReadGeminiEvent(r, now)
	}
	e, ok := ReadClaudeEvent(r, now)
	if agent == "qwen" || agent == "opencode" {
		e.Agent = agent
	}
	return e, ok
}
