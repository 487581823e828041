package ralph

import "fmt"

// The budget (--max-cost): a loop that has cost more than it may is stopped, and reported
// like a loop that gave up, since someone has to decide whether to spend more.

// OverBudget reports whether spent passes the loop's budget.
func OverBudget(spent float64, lim Limits) bool {
	return lim.MaxCost > 0 && spent > lim.MaxCost
}

// withBudget stops a loop over its budget once an iteration ended, unless the iteration
// already ended the loop another way.
func withBudget(d Decision, f RunFacts, lim Limits) Decision {
	if !OverBudget(f.Spent, lim) || d.Ended {
		return d
	}
	msg := fmt.Sprintf("cost $%.4f passed the budget of $%.2f, stopping loop", f.Spent, lim.MaxCost)
	d.Backoff = 0
	d.say("%s", msg)
	d.event("BUDGET", "iteration %d %s", f.Iteration, msg)
	d.stop(StatusStopped, "budget_exceeded", "")
	d.Escalate = fmt.Sprintf("budget exceeded: $%.4f of $%.2f", f.Spent, lim.MaxCost)
	return d
}
