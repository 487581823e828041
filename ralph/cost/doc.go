// Package cost reads what agents record about their own token use and prices it. swarm does
// not sit between an agent and its API, so what an iteration spent can only be read from
// what the agent wrote down: Claude Code's session transcripts (ClaudeIteration,
// found exactly by the session id the loop gives it) and Codex's rollouts (CodexIteration,
// found by the directory it ran in). Both are read for one Window, the iteration's time, and
// when the records cannot say which session was the iteration's (none, or several agents in
// one directory at once) the answer is "not known" (ok false), never another session's
// tokens. Other agents record nothing swarm reads; their cost stays unknown.
//
// Usage and ByModel are token counts; Prices maps models to Price, in US dollars per million
// tokens. DefaultPrices holds the list prices, one table that a project overrides with
// swarm.toml's [pricing] (Prices.With). A model is priced by its longest matching entry once
// its date suffix and context tag are taken off (Normalize, Match), and a family entry
// ("claude-opus-*") prices a release newer than the table, so a new default model does not
// turn a loop's cost into "unknown". A model no entry knows makes the cost unknown rather than
// counted as free (ByModel.Price lists it).
//
// The loop's driver (ralph/driver, feature_cost.go) adds each iteration's figures to its
// totals once, and stops at --max-cost (ralph's budget.go). cost stands on package state at
// most (the layering test in cmd/swarm checks that): it reads files, starts nothing and knows
// no loop.
package cost
