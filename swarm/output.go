package swarm

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// formatFlag returns the --format value after checking it is one of allowed.
func formatFlag(c *cli.Context, allowed ...string) (string, error) {
	return checkFormat(c.String("format"), allowed...)
}

// checkFormat accepts f when it is one of allowed.
func checkFormat(f string, allowed ...string) (string, error) {
	for _, a := range allowed {
		if f == a {
			return f, nil
		}
	}
	want := strings.Join(allowed[:len(allowed)-1], ", ") + " or " + allowed[len(allowed)-1]
	return "", fail("invalid --format '%s' (expected %s)", f, want)
}

// printJSON writes v as indented JSON, the shape every --format json output has.
func printJSON(e *env, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, string(data))
	return nil
}

// exactlyOneName checks that a command that acts on one worker got exactly one argument.
func exactlyOneName(args []string, usage string) error {
	if len(args) != 1 {
		return usageError(usage)
	}
	return nil
}

// usageError answers a command line that does not fit the command's usage: the usage, and the
// help to read (the command is usage's leading words: "swarm ralph logs" of "swarm ralph logs
// NAME").
func usageError(usage string) error {
	var path []string
	for _, w := range strings.Fields(usage) {
		if strings.Trim(w, "abcdefghijklmnopqrstuvwxyz-") != "" {
			break
		}
		path = append(path, w)
	}
	return fail("usage: %s (see '%s --help')", usage, strings.Join(path, " "))
}

// notNegative checks a flag that cannot be below zero.
func notNegative(v float64, flag string) error {
	if v < 0 {
		return fail("%s must not be negative", flag)
	}
	return nil
}
