package ralph

import "github.com/swarm-dev/swarm/ralph/words"

// The stagnation breaker (--stagnation-limit N): N iterations in a row that change nothing in
// git, neither a commit nor a file, end the loop as stagnated instead of letting it spin.

// DefaultStagnationLimit is how many unchanged iterations in a row stop a loop.
const DefaultStagnationLimit = 3

// StagnationFacts is what the driver saw of the worker's checkout after an iteration.
type StagnationFacts struct {
	Limit  int    // 0: the breaker is off
	InRepo bool   // the worker's directory is in a git repository
	Before string // the checkout's fingerprint after the previous iteration (or at the start)
	After  string // and now
	Count  int    // unchanged iterations in a row before this one
}

// StagnationReading is what the loop state keeps between iterations.
type StagnationReading struct {
	Fingerprint string
	Count       int
}

// stagnation counts this iteration and says whether the loop has stagnated.
func stagnation(f StagnationFacts) (*StagnationReading, bool) {
	if f.Limit <= 0 || !f.InRepo {
		return nil, false
	}
	r := &StagnationReading{Fingerprint: f.After}
	if f.Before != "" && f.After == f.Before {
		r.Count = f.Count + 1
	}
	return r, r.Count >= f.Limit
}

// withStagnation records the breaker's count with an iteration's decision and, when the loop
// would otherwise go on to another iteration, ends it as stagnated at the limit.
func withStagnation(d Decision, f RunFacts, lim Limits) Decision {
	r, stagnated := stagnation(f.Stagnation)
	d.Stagnation = r
	if !stagnated || !f.Running || d.Ended || d.Status != "" || f.Iteration >= lim.MaxIterations {
		return d
	}
	d.Backoff = 0
	d.Say("no git changes in %s, stopping loop (stagnated)", words.Plural(r.Count, "iteration"))
	d.event("STAGNATED", "no git changes in %s", words.Plural(r.Count, "iteration"))
	d.Stop(StatusStopped, "stagnated", "")
	return d
}
