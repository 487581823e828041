package swarm

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// How a flag reads in --help: its default once. The library appends "(default: X)" to every
// flag's usage; it is left out where the usage already says the default in words, for a
// switch that is off unless given, for a required flag, and for a zero that means "not set".
func init() {
	plain := cli.FlagStringer
	cli.FlagStringer = func(f cli.Flag) string {
		s := plain(f)
		d, ok := f.(cli.DocGenerationFlag)
		if !ok || d.GetDefaultText() == "" {
			return s
		}
		generated := " (default: " + d.GetDefaultText() + ")"
		at := strings.LastIndex(s, generated)
		if at < 0 || !defaultGoesWithout(f, d) {
			return s
		}
		return s[:at] + s[at+len(generated):]
	}
}

// defaultGoesWithout reports whether a flag's help is clearer without the default the library
// would show.
func defaultGoesWithout(f cli.Flag, d cli.DocGenerationFlag) bool {
	if r, ok := f.(cli.RequiredFlag); ok && r.IsRequired() {
		return true
	}
	if strings.Contains(d.GetUsage(), "default") || strings.Contains(d.GetUsage(), "(required)") {
		return true
	}
	switch d.GetDefaultText() {
	case "false", "0", "0s", `""`:
		return true
	}
	return false
}
