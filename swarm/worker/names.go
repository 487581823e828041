package worker

import (
	"fmt"
	"regexp"
)

// Worker names become tmux window names, file names and git branch names. tmux expands
// #(...) in names and matches targets by prefix, so only a plain, short alphabet is allowed.
var nameRE = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_-]{0,47}$`)

const nameRule = "use 1-48 letters, digits, '-' or '_', starting with a letter or digit"

// ValidateName is called before any file or tmux operation that involves the name.
func ValidateName(name string) error {
	if name == "" {
		return fmt.Errorf("worker name is empty (%s)", nameRule)
	}
	if !nameRE.MatchString(name) {
		return fmt.Errorf("invalid worker name %s: %s", quoteName(name), nameRule)
	}
	return nil
}

// validateSession checks a tmux session name by the same rule as a worker's.
func validateSession(s string) error {
	if !nameRE.MatchString(s) {
		return fmt.Errorf("invalid session name %s: %s", quoteName(s), nameRule)
	}
	return nil
}

// quoteName shows a name so that control characters and newlines are visible.
func quoteName(name string) string {
	q := fmt.Sprintf("%q", name)
	if q[1:len(q)-1] == name {
		return "'" + name + "'"
	}
	return q
}
