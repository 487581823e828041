package driver

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
)

// patterns are the loop's compiled patterns: they are compiled once per loop, not at every
// look at the screen, and afresh for a chain's next step or an agent's next stage, whose
// patterns and prompt may differ (forget).
type patterns struct {
	doneRE  *regexp.Regexp
	readyRE *regexp.Regexp
	// matcher counts the done pattern on screen outside the prompt's echo.
	matcher *screen.DoneMatcher
	// compaction finds a compaction under way outside the prompt's echo (--max-context).
	compaction *screen.DoneMatcher
}

func (p *patterns) compile(st *ralph.State) error {
	if expr := st.DoneExpression(); expr != "" && p.doneRE == nil {
		re, err := regexp.Compile(expr)
		if err != nil {
			return fmt.Errorf("invalid done pattern: %v", err)
		}
		p.doneRE = re
	}
	if st.ReadyPattern != "" && p.readyRE == nil {
		re, err := regexp.Compile(st.ReadyPattern)
		if err != nil {
			return fmt.Errorf("invalid ready pattern: %v", err)
		}
		p.readyRE = re
	}
	return nil
}

// ensureMatcher builds the done matcher from the iteration's prompt copy when this monitor
// did not deliver the prompt itself (it took over a running iteration).
func (p *patterns) ensureMatcher(promptCopy string) {
	if p.matcher == nil {
		prompt, _ := state.ReadFile(promptCopy)
		p.matcher = screen.NewDoneMatcher(p.doneRE, string(prompt))
	}
}

// forget drops the patterns of a loop that ended, for the next loop's.
func (p *patterns) forget() { p.doneRE, p.matcher, p.compaction = nil, nil, nil }

// screenKind is what the screen shows the agent doing (the loop's ready pattern counts).
func (p *patterns) screenKind(lines []string) screen.Kind {
	return screen.Classify(strings.Join(lines, "\n"), p.readyRE).Kind
}

// doneShown reports whether the done pattern shows in message (the agent's last answer) or
// on screen beyond the echoes the iteration began with; never when the loop has none.
func (p *patterns) doneShown(st *ralph.State, message string, lines []string) bool {
	if p.doneRE == nil {
		return false
	}
	return message != "" && p.doneRE.MatchString(message) || p.matcher != nil && p.matcher.Count(lines) > st.DoneBaseline
}
