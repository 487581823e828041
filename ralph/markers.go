package ralph

import (
	"regexp"
	"strings"
)

// What counts as the agent saying it is done: the user's done patterns and, unless turned off,
// the completion markers agents are commonly told to print.

// BuiltinMarkers are recognised in every loop unless --no-builtin-markers.
var BuiltinMarkers = []string{"<promise>COMPLETE</promise>", "RALPH_STATUS: COMPLETE"}

// builtinPatterns are the built-in markers as regular expressions (the status line may be
// written with more space after the colon).
var builtinPatterns = []string{regexp.QuoteMeta(BuiltinMarkers[0]), `RALPH_STATUS:\s*COMPLETE`}

// UserDonePatterns are the loop's own done patterns: --done-pattern, as often as given (a
// state written before several were allowed has the one).
func (st *State) UserDonePatterns() []string {
	if len(st.DonePatterns) > 0 {
		return st.DonePatterns
	}
	if st.DonePattern != nil && *st.DonePattern != "" {
		return []string{*st.DonePattern}
	}
	return nil
}

// SetDonePatterns records the user's done patterns (the first also where older readers, and
// the Python swarm, look for it) and whether the built-in markers count.
func (st *State) SetDonePatterns(patterns []string, builtins bool) {
	st.DonePatterns, st.DonePattern = nil, nil
	if len(patterns) > 0 {
		first := patterns[0]
		st.DonePattern = &first
		st.DonePatterns = append([]string(nil), patterns...)
	}
	st.NoBuiltinMarkers = !builtins
}

// DoneExpression is one regular expression for everything that ends the loop as done; "" when
// nothing does.
func (st *State) DoneExpression() string {
	pats := st.UserDonePatterns()
	if !st.NoBuiltinMarkers {
		pats = append(append([]string(nil), pats...), builtinPatterns...)
	}
	if len(pats) == 0 {
		return ""
	}
	return "(?:" + strings.Join(pats, ")|(?:") + ")"
}
