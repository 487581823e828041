package report

import (
	"fmt"
	"strings"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/words"
)

// outcomeOf is how an iteration ended, in one word, and what says more. What undid or refuted
// the iteration's work comes first: a rollback, then a checker that said no.
func outcomeOf(r ralph.IterationRecord) (outcome, reason string) {
	if r.RolledBack {
		return OutcomeRolledBack, words.Plural(len(r.Commits), "commit") + " reverted: the tests failed"
	}
	if failed, ok := failedCheck(r.Checks); ok {
		return OutcomeChecksFailed, failed
	}
	switch r.EndReason {
	case "done", "done_file":
		return OutcomeDone, ""
	case "exit":
		return exitOutcome(r)
	case "hang":
		return OutcomeHung, ""
	case "iteration_timeout":
		return OutcomeTimedOut, "iteration timeout"
	case "ready_timeout":
		return OutcomeTimedOut, "never ready for its prompt"
	case "api_error":
		return OutcomeFailed, firstOf(r.Error, "API error")
	case "usage_limit":
		return OutcomeUsageLimit, r.Error
	case "budget_exceeded":
		return OutcomeBudget, ""
	case "stopped":
		return OutcomeStopped, ""
	case "inactivity":
		return OutcomeEnded, "quiet"
	case "turn_end":
		return OutcomeEnded, "turn ended"
	case "context_limit", "compaction":
		return OutcomeEnded, "context full"
	}
	// An ending this version does not know (a newer swarm's): said as recorded.
	return OutcomeEnded, r.EndReason
}

// exitOutcome is an agent that exited by itself: done when its checkers passed on it.
func exitOutcome(r ralph.IterationRecord) (string, string) {
	switch {
	case r.ExitCode == nil:
		return OutcomeFailed, "exit code unknown"
	case *r.ExitCode != 0:
		return OutcomeFailed, fmt.Sprintf("exit %d", *r.ExitCode)
	case len(r.Checks) > 0:
		return OutcomeDone, ""
	}
	return OutcomeEnded, "exit 0"
}

// failedCheck is the first checker that said no, as "name: message".
func failedCheck(checks []ralph.CheckResult) (string, bool) {
	for _, c := range checks {
		if !c.Passed {
			return strings.TrimSuffix(c.Name+": "+c.Message, ": "), true
		}
	}
	return "", false
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// count adds one iteration of outcome o.
func (c *Outcomes) count(o string) {
	c.Total++
	switch o {
	case OutcomeDone:
		c.Done++
	case OutcomeEnded:
		c.Ended++
	case OutcomeFailed:
		c.Failed++
	case OutcomeTimedOut:
		c.TimedOut++
	case OutcomeHung:
		c.Hung++
	case OutcomeRolledBack:
		c.RolledBack++
	case OutcomeChecksFailed:
		c.ChecksFailed++
	case OutcomeUsageLimit:
		c.UsageLimit++
	case OutcomeBudget:
		c.Budget++
	case OutcomeStopped:
		c.Stopped++
	}
}

// add adds o.
func (c *Outcomes) add(o Outcomes) {
	c.Total += o.Total
	c.Done += o.Done
	c.Ended += o.Ended
	c.Failed += o.Failed
	c.TimedOut += o.TimedOut
	c.Hung += o.Hung
	c.RolledBack += o.RolledBack
	c.ChecksFailed += o.ChecksFailed
	c.UsageLimit += o.UsageLimit
	c.Budget += o.Budget
	c.Stopped += o.Stopped
}

// counted are the outcomes with their counts, in the order a person reads them: what went
// well, then what went wrong, then the rest.
func (c Outcomes) counted() []struct {
	word string
	n    int
} {
	return []struct {
		word string
		n    int
	}{
		{"done", c.Done}, {"ended", c.Ended}, {"failed", c.Failed}, {"timed out", c.TimedOut},
		{"hung", c.Hung}, {"rolled back", c.RolledBack}, {"checks failed", c.ChecksFailed},
		{"usage limit", c.UsageLimit}, {"budget", c.Budget}, {"stopped", c.Stopped},
	}
}

// failing reports an outcome whose reason a person wants to read.
func failing(o string) bool {
	switch o {
	case OutcomeFailed, OutcomeTimedOut, OutcomeHung, OutcomeChecksFailed, OutcomeRolledBack:
		return true
	}
	return false
}
