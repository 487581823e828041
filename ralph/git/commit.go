package git

import "strings"

// Agent mode's commits: all of a spec's changes in one commit, or set aside when the spec
// failed. Paths in keep (the agent's own bookkeeping: its inbox, plan, session, logs) are
// never committed, stashed or discarded.

// excluding is the pathspec "everything but keep" in dir. A kept path that git ignores is
// out of it already, and is left unnamed: naming an ignored path, even to exclude it, makes
// git add and git stash refuse.
func excluding(dir string, keep []string) []string {
	ignored := map[string]bool{}
	if out, err := Run(dir, append([]string{"check-ignore", "--"}, keep...)...); err == nil {
		for _, p := range strings.Split(out, "\n") {
			ignored[p] = true
		}
	}
	spec := []string{"--", "."}
	for _, k := range keep {
		if !ignored[k] {
			spec = append(spec, ":(exclude)"+k)
		}
	}
	return spec
}

// CommitAll stages every change but keep and commits it with message (the first line is the
// subject); a spec that changed nothing still gets its commit. It returns the short hash.
func CommitAll(dir, message string, keep []string) (string, error) {
	if _, err := Run(dir, append([]string{"add", "-A"}, excluding(dir, keep)...)...); err != nil {
		return "", err
	}
	if _, err := runEnv(dir, identity(dir), "commit", "--allow-empty", "--no-verify", "-q", "-m", message); err != nil {
		return "", err
	}
	return Run(dir, "rev-parse", "--short", "HEAD")
}

// SetAside takes every change but keep out of the checkout, tracked or not: stashed with
// message, or discarded when drop. A checkout without changes is left as it is; ok reports
// whether there was anything to set aside.
func SetAside(dir, message string, keep []string, drop bool) (ok bool, err error) {
	status, err := Run(dir, append([]string{"status", "--porcelain"}, excluding(dir, keep)...)...)
	if err != nil || strings.TrimSpace(status) == "" {
		return false, err
	}
	args := append([]string{"stash", "push", "--include-untracked", "-m", message}, excluding(dir, keep)...)
	if _, err := runEnv(dir, identity(dir), args...); err != nil {
		return false, err
	}
	if drop {
		_, err = Run(dir, "stash", "drop", "-q")
	}
	return true, err
}

// HeadWithTrailer is the short hash of the commit checked out in dir when its message has the
// trailer key: value (a commit already made for what is about to be committed), else "".
func HeadWithTrailer(dir, key, value string) string {
	out, err := Run(dir, "log", "-1", "--format=%h%n%(trailers:key="+key+",valueonly)")
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) == value {
			return lines[0]
		}
	}
	return ""
}
