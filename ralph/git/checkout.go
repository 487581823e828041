package git

import "strings"

// What stands in the way of moving a checkout: its own changes, told apart the way git treats
// them when it moves a checkout. A fast-forward carries tracked modifications along only when
// they do not touch what it changes, and leaves untracked files alone unless it would write
// a file of the same path; swarm is stricter about the first (a tracked change is the user's
// work in progress) and exactly as strict as git about the second.

// CheckoutChanges lists the changes in the worktree at dir: modified are the tracked files
// changed, staged, added, deleted or in conflict; untracked are the files git does not track
// and does not ignore, each file by its path (not a directory for a whole untracked tree).
func CheckoutChanges(dir string) (modified, untracked []string, err error) {
	out, err := rawOutput(dir, nil, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		return nil, nil, err
	}
	for _, entry := range strings.Split(string(out), "\x00") {
		if len(entry) < 4 {
			continue
		}
		code, path := entry[:2], entry[3:]
		switch code {
		case "??":
			untracked = append(untracked, path)
		case "!!":
		default:
			modified = append(modified, path)
		}
	}
	return modified, untracked, nil
}

// ChangedPaths lists the files that differ between commits from and to: what moving a
// checkout from one to the other writes or removes.
func ChangedPaths(repo, from, to string) ([]string, error) {
	out, err := rawOutput(repo, nil, "diff", "--name-only", "-z", "--no-renames", from, to, "--")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths, nil
}
