package git

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Run runs git in dir and returns its trimmed output, or an error carrying git's own message.
func Run(dir string, args ...string) (string, error) { return runEnv(dir, nil, args...) }

// runEnv is Run with extra environment variables.
func runEnv(dir string, env []string, args ...string) (string, error) {
	out, err := rawOutput(dir, env, args...)
	return strings.TrimSpace(string(out)), err
}

// rawOutput runs git in dir with extra environment variables and returns its output as it
// is (a file's content keeps its last newline), or an error carrying git's own message.
func rawOutput(dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	// git's own message is at the end of what it prints on stderr, after what the
	// repository's hooks print there (a hook running a suite prints without bound).
	var out bytes.Buffer
	errb := &tailBuffer{max: outputBound}
	cmd.Stdout, cmd.Stderr = &out, errb
	if err := runCmd(cmd); err != nil {
		return nil, gitError(args[0], errb.String(), err)
	}
	return out.Bytes(), nil
}

// gitError is a failed git command as an error: git's own message, else how it ended.
func gitError(cmd, stderr string, err error) error {
	msg := strings.TrimSpace(stderr)
	if msg == "" {
		msg = err.Error()
	}
	return fmt.Errorf("git %s: %s", cmd, msg)
}

// Head is the commit checked out in dir, or "" outside a repository or before the first
// commit.
func Head(dir string) string {
	if outsideRepository(dir) {
		return ""
	}
	sha, err := Run(dir, "rev-parse", "--verify", "--quiet", "HEAD")
	if err != nil {
		return ""
	}
	return sha
}

// outsideRepository reports a directory that git would find no repository for: no .git in it
// or above it, none of them a repository itself, no GIT_DIR pointing elsewhere. A loop asks
// for the commit at every iteration's start and end; outside a repository that answer costs
// a look at a few paths instead of a git process.
func outsideRepository(dir string) bool {
	if os.Getenv("GIT_DIR") != "" {
		return false
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for {
		if exists(filepath.Join(d, ".git")) || exists(filepath.Join(d, "HEAD")) && exists(filepath.Join(d, "objects")) {
			return false
		}
		parent := filepath.Dir(d)
		if parent == d {
			return true
		}
		d = parent
	}
}

// exists is false only for a path that is not there (a path that cannot be looked at may be).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// CommitsSince lists the commits reachable from HEAD but not from base, newest first.
func CommitsSince(dir, base string) ([]string, error) {
	out, err := Run(dir, "rev-list", base+"..HEAD")
	if err != nil {
		return nil, err
	}
	if out == "" {
		return nil, nil
	}
	return strings.Split(out, "\n"), nil
}

// Revert reverts the given commits in order, each as its own revert commit, and returns those
// it reverted. At the first one that fails the revert in progress is aborted, so the worktree
// is left clean on the last good revert.
func Revert(dir string, commits []string) ([]string, error) {
	var done []string
	who := identity(dir)
	for _, c := range commits {
		if _, err := runEnv(dir, who, "revert", "--no-edit", c); err != nil {
			_, _ = Run(dir, "revert", "--abort")
			return done, err
		}
		done = append(done, c)
	}
	return done, nil
}

// Fallback identity for swarm's own commits (reverts) in a repository where none is set:
// without one git refuses to commit, and a broken commit would stay.
const (
	fallbackName  = "swarm"
	fallbackEmail = "swarm@localhost"
)

// identity returns the environment that gives git an author and committer when the
// repository, the user's configuration and the environment give it none (or empty ones).
func identity(dir string) []string {
	if _, err := Run(dir, "var", "GIT_COMMITTER_IDENT"); err == nil {
		if _, err := Run(dir, "var", "GIT_AUTHOR_IDENT"); err == nil {
			return nil
		}
	}
	return []string{"GIT_AUTHOR_NAME=" + fallbackName, "GIT_AUTHOR_EMAIL=" + fallbackEmail,
		"GIT_COMMITTER_NAME=" + fallbackName, "GIT_COMMITTER_EMAIL=" + fallbackEmail}
}

// Identity is who git commits as in dir, in this process's environment ("Name <email>"), or
// git's own message when it has no identity to commit with (no user.name or user.email, and
// none it may guess).
func Identity(dir string) (string, error) {
	ident := ""
	for _, v := range []string{"GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"} {
		out, err := Run(dir, "var", v)
		if err != nil {
			return "", err
		}
		ident = out
	}
	// "Name <email> 1700000000 +0000": the time is not who.
	if i := strings.LastIndexByte(ident, '>'); i >= 0 {
		ident = ident[:i+1]
	}
	return ident, nil
}

// Push pushes the current branch to its upstream.
func Push(dir string) error {
	_, err := Run(dir, "push")
	return err
}

// WithCheckout checks commit out into a throwaway worktree of dir's repository, runs fn there
// and removes the worktree again, whatever fn returns. The caller's own worktree is never
// touched, so an agent's uncommitted work is safe.
func WithCheckout(dir, commit string, fn func(path string) error) error {
	tmp, err := os.MkdirTemp("", "swarm-checkout-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	path := filepath.Join(tmp, "wt")
	if _, err := Run(dir, "worktree", "add", "--detach", path, commit); err != nil {
		return err
	}
	defer func() { _, _ = Run(dir, "worktree", "remove", "--force", path) }()
	return fn(path)
}
