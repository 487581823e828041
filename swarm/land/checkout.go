package land

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/swarm-dev/swarm/ralph/git"
)

// A checkout of the target is moved with its files, so what is in it decides whether it can
// be: tracked changes are someone's work in progress and always stop it (as before), while
// untracked files (an agent's notes, a build's output, specs not committed yet) stop it only
// when the landing would write a file where one of them is, as git itself would refuse.

// shownPaths is how many paths a reason names before it counts the rest.
const shownPaths = 5

// checkoutFree says why the checkout at path of c's target cannot be moved from old to head,
// or nil when it can.
func checkoutFree(c Candidate, path, old, head string) error {
	modified, untracked, err := git.CheckoutChanges(path)
	if err != nil {
		return err
	}
	var changed []string
	if len(modified) == 0 && len(untracked) > 0 {
		if changed, err = git.ChangedPaths(c.Repo, old, head); err != nil {
			return err
		}
	}
	if why := checkoutBlock(c.Target, path, modified, untracked, changed); why != "" {
		return fmt.Errorf("tested, not landed: %s", why)
	}
	return nil
}

// checkoutBlock is why a checkout of target at path with these tracked changes (modified)
// and untracked files cannot be moved by a landing that writes the files changed; "" when
// nothing stands in the way.
func checkoutBlock(target, path string, modified, untracked, changed []string) string {
	if len(modified) > 0 {
		return fmt.Sprintf("%s is checked out in %s with uncommitted changes to tracked files (%s); commit or stash them there, then run swarm land again",
			target, path, namePaths(modified))
	}
	if in := overwritten(untracked, changed); len(in) > 0 {
		return fmt.Sprintf("%s is checked out in %s with untracked files the landing would overwrite (%s); move them away or commit them there, then run swarm land again",
			target, path, namePaths(in))
	}
	return ""
}

// overwritten are the untracked files that moving the checkout would write over: a file
// changed at the same path, one whose directory it would make a file of, or a file
// standing where it would make a directory.
func overwritten(untracked, changed []string) []string {
	var hit []string
	for _, u := range untracked {
		for _, c := range changed {
			if u == c || strings.HasPrefix(u, c+"/") || strings.HasPrefix(c, u+"/") {
				hit = append(hit, u)
				break
			}
		}
	}
	return hit
}

// namePaths names the first few paths, each shown so that no byte of a file's name can act
// on the terminal, and counts the rest.
func namePaths(paths []string) string {
	shown := make([]string, 0, shownPaths)
	for _, p := range paths[:min(len(paths), shownPaths)] {
		shown = append(shown, showPath(p))
	}
	s := strings.Join(shown, ", ")
	if rest := len(paths) - len(shown); rest > 0 {
		s += fmt.Sprintf(" and %d more", rest)
	}
	return s
}

// showPath is a path as it is when every rune of it prints, else quoted with escapes.
func showPath(p string) string {
	for _, r := range p {
		if !unicode.IsPrint(r) {
			return strconv.Quote(p)
		}
	}
	return p
}
