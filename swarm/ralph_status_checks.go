package swarm

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/words"
)

// printCompletionStatus shows how the loop verifies a claim of being done, and its hooks.
func printCompletionStatus(out io.Writer, st *ralph.State, chain *ralph.ChainState) {
	if chain != nil {
		fmt.Fprintf(out, "Chain: %s\n", chain.Line(st.CurrentIteration))
	}
	fmt.Fprintf(out, "Cost: %s\n", costText(st))
	if st.Status == ralph.StatusWaiting {
		printWaiting(out, st, time.Now())
	}
	if len(st.Checks) == 0 {
		fmt.Fprintf(out, "Checks: none (a done marker or the DONE file ends the loop)\n")
	} else {
		fmt.Fprintf(out, "Checks: %s (timeout %ds each)\n", strings.Join(st.Checks, ", "), checkTimeoutSeconds(st))
	}
	if len(st.LastChecks) > 0 {
		fmt.Fprintf(out, "Last checks: %s\n", lastChecksText(st.LastChecks))
	}
	for _, typ := range config.HookTypes {
		var cmds []string
		for _, h := range st.Hooks {
			if h.Type == typ {
				cmds = append(cmds, h.Command)
			}
		}
		if len(cmds) > 0 {
			fmt.Fprintf(out, "Hook %s: %s\n", typ, strings.Join(cmds, "; "))
		}
	}
}

func checkTimeoutSeconds(st *ralph.State) int {
	if st.CheckTimeout > 0 {
		return st.CheckTimeout
	}
	return int(ralph.DefaultCheckTimeout.Seconds())
}

// lastChecksText is the last verdict in one line: "1/2 passed (file:DONE.md failed: ...)".
func lastChecksText(results []ralph.CheckResult) string {
	passed := 0
	var failed []string
	for _, r := range results {
		if r.Passed {
			passed++
		} else {
			failed = append(failed, r.Name+": "+words.OneLine(r.Message))
		}
	}
	s := fmt.Sprintf("%d/%d passed", passed, len(results))
	if len(failed) > 0 {
		s += " (failed: " + strings.Join(failed, "; ") + ")"
	}
	return s
}

// costCell is the COST column: "$1.42", or "-" while nothing is known.
func costCell(st *ralph.State) string {
	if st.CostIterations == 0 {
		return "-"
	}
	return fmt.Sprintf("$%.2f", st.CostUSD)
}

// costText is the cost in one line: "$1.42 (12 iterations, 1.2M tokens), budget $5.00".
func costText(st *ralph.State) string {
	var s string
	switch {
	case st.CostIterations > 0:
		s = fmt.Sprintf("$%.2f (%s, %s tokens)", st.CostUSD, words.Plural(st.CostIterations, "iteration"), words.Count(st.Tokens.Total()))
	case st.Tokens.Total() > 0:
		s = fmt.Sprintf("unknown (%s tokens of a model without a price)", words.Count(st.Tokens.Total()))
	case st.Agent == "claude" || st.Agent == "codex":
		s = "$0.00 (nothing recorded yet)"
	default:
		s = "not tracked (read from Claude Code's and Codex's own session records)"
	}
	if st.MaxCost > 0 {
		s += fmt.Sprintf(", budget $%.2f", st.MaxCost)
	}
	return s
}

// printWaiting shows a loop parked at a usage limit: when it resets (or, when the agent did
// not say, when the loop tries again) and what the agent said.
func printWaiting(out io.Writer, st *ralph.State, now time.Time) {
	until := ralph.ParseTime(st.WaitingUntil)
	if reset := ralph.ParseTime(st.WaitingReset); !reset.IsZero() {
		fmt.Fprintf(out, "Waiting: usage limit, resets %s (in %s)\n", reset.Local().Format("2006-01-02 15:04 MST"),
			words.Short(reset.Sub(now)))
	} else if !until.IsZero() {
		fmt.Fprintf(out, "Waiting: usage limit, reset time not known; trying again %s (in %s)\n",
			until.Local().Format("2006-01-02 15:04 MST"), words.Short(until.Sub(now)))
	}
	if st.WaitingFor != "" {
		fmt.Fprintf(out, "Limit: %s\n", st.WaitingFor)
	}
}
