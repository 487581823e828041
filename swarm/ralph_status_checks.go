package swarm

import (
	"fmt"
	"io"
	"strings"

	"github.com/swarm-dev/swarm/ralph"
)

// printCompletionStatus shows how the loop verifies a claim of being done, and its hooks.
func printCompletionStatus(out io.Writer, st *ralph.State) {
	if len(st.Checks) == 0 {
		fmt.Fprintf(out, "Checks: none (a done marker or the DONE file ends the loop)\n")
	} else {
		fmt.Fprintf(out, "Checks: %s (timeout %ds each)\n", strings.Join(st.Checks, ", "), checkTimeoutSeconds(st))
	}
	if len(st.LastChecks) > 0 {
		fmt.Fprintf(out, "Last checks: %s\n", lastChecksText(st.LastChecks))
	}
	for _, typ := range ralph.HookTypes {
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
			failed = append(failed, r.Name+": "+ralph.OneLine(r.Message))
		}
	}
	s := fmt.Sprintf("%d/%d passed", passed, len(results))
	if len(failed) > 0 {
		s += " (failed: " + strings.Join(failed, "; ") + ")"
	}
	return s
}
