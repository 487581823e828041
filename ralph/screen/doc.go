// Package screen reads what an agent's pane shows. Many agents tell nothing but their screen,
// and those that send signals send none about a first-run dialog, so this is where the loop
// learns whether its agent can take input, is working, or waits at a dialog (Classify: Ready,
// Busy, Dialog, Unknown); whether anything changed between two captures (ActivityHash), or
// anything but a spinner and its counters (SubstantiveHash, which tells a hung agent from a
// busy one); whether it printed the done marker outside the echo of the prompt that names it
// (DoneMatcher); and whether it gave up on its API (APIError), spent its usage limit and when
// that resets (UsageLimit, LimitReset), or how full its context is (ContextUsed,
// CompactionPattern); whether its input area still holds the prompt pasted into it after
// Enter, which then did not submit it (HoldsPrompt), or the prompt shows above it, the agent's
// echo of a prompt it took (EchoesPrompt); and what the agent said last, above its
// input area and the footer drawn under it (AboveInput), made safe to show anywhere
// (Printable).
//
// It works on captured text alone: no tmux, no processes, no clock but the one a caller passes
// in. That keeps every rule checkable against recorded screens of the real agents, kept per
// release in testdata/screens (Claude Code, Codex, Gemini CLI, Qwen Code, Copilot CLI,
// opencode), since users run old releases too and a new one can draw its frames differently.
// Every detector runs on every fixture of every release, and a fixture not listed for a
// detector must give nothing, so a rule made for one screen cannot quietly fire on another. Lines is how a capture (or a pane's
// raw output, escape codes and all) becomes the lines every rule reads.
//
// The rules read the agents' own marks, which the echo of a prompt or a tool's output never
// carry (a message bullet, an input box, a footer), and only as far up the screen as the
// agent draws them: text the agent merely quotes must not end an iteration. Patterns are
// compiled on first use (compiled.go), as every swarm process loads this package and most use
// few of its patterns.
//
// screen stands on package state at most (the layering test in cmd/swarm checks that): it
// sits under the loop, which decides what a screen means for an iteration, and under the
// CLI, which waits for the same input prompt (swarm spawn --ready-wait) and names the same
// dialogs to users.
package screen
