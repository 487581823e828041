// Package templates holds the files swarm writes for users, embedded in the binary.
package templates

import _ "embed"

// Prompt is the starter PROMPT.md for a ralph loop: minimal and direct, so the agent's context
// goes to the work.
//
//go:embed PROMPT.md
var Prompt string
