package screen

import (
	"regexp"
	"sync"
)

// compiled is a pattern compiled the first time it is used: every swarm process (each
// command, the demo agent at each of its starts) loads this package, and most use few of its
// patterns or none.
func compiled(pattern string) func() *regexp.Regexp {
	re := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
	allPatterns = append(allPatterns, re)
	return re
}

// allPatterns are the package's patterns, for the test that compiles every one.
var allPatterns []func() *regexp.Regexp
