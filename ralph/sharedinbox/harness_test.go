package sharedinbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/ralph/inbox"
)

// A project shared through a bare repository in the test's directory: a seed that queued
// specs and pushed them, and clones of it, each standing for a host.

var t0 = time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)

type shared struct {
	t    *testing.T
	root string
	bare string
	seed string
}

// newShared makes the shared repository with the queue of records (each id's spec file
// committed too) and returns it.
func newShared(t *testing.T, ids ...string) *shared {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	for _, who := range []string{"AUTHOR", "COMMITTER"} {
		t.Setenv("GIT_"+who+"_NAME", "Swarm Test")
		t.Setenv("GIT_"+who+"_EMAIL", "test@swarm.invalid")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := &shared{t: t, root: root, bare: filepath.Join(root, "shared.git"), seed: filepath.Join(root, "seed")}
	s.git(root, "init", "-q", "-b", "main", s.seed)
	s.write(s.seed, "base.txt", "base\n")
	s.queue(s.seed, ids...)
	s.git(s.seed, "add", "-A")
	s.git(s.seed, "commit", "-q", "-m", "the queue")
	s.git(root, "clone", "-q", "--bare", s.seed, s.bare)
	s.git(s.seed, "remote", "add", "origin", s.bare)
	s.git(s.seed, "fetch", "-q", "origin")
	s.git(s.seed, "branch", "-q", "--set-upstream-to=origin/main")
	return s
}

// queue adds records for ids to dir's inbox, with their spec files.
func (s *shared) queue(dir string, ids ...string) {
	s.t.Helper()
	err := inbox.Inbox{Root: dir}.Update(func(recs []inbox.Record) ([]inbox.Record, error) {
		for _, id := range ids {
			recs = append(recs, inbox.Record{T: "inbox", ID: id, Spec: id + ".md", AddedAt: inbox.Now(t0), Status: inbox.Pending})
		}
		return recs, nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
	for _, id := range ids {
		s.write(dir, "ralph/specs/"+id+".md", "spec "+id+"\n")
	}
}

// clone is a new clone of the shared repository, and an agent in it.
func (s *shared) clone(name string) *ralph.AgentMode {
	s.t.Helper()
	dir := filepath.Join(s.root, name)
	s.git(s.root, "clone", "-q", s.bare, dir)
	return &ralph.AgentMode{Project: dir, OnFailure: ralph.OnFailureStash,
		Shared:  &ralph.SharedInbox{Remote: "origin", ClaimTimeout: 3600, Host: "host-" + name},
		Session: ralph.AgentSession{Worker: "w-" + name}}
}

func (s *shared) git(dir string, args ...string) string {
	s.t.Helper()
	out, err := git.Run(dir, args...)
	if err != nil {
		s.t.Fatal(err)
	}
	return out
}

func (s *shared) write(dir, name, content string) {
	s.t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// claimOnRemote is the claim on id as the shared repository has it; ok is false for none.
func (s *shared) claimOnRemote(id string) (c inbox.Claim, ok bool) {
	s.t.Helper()
	sha, err := git.Run(s.bare, "rev-parse", "--verify", "--quiet", inbox.ClaimRefPrefix+id)
	if err != nil {
		return c, false
	}
	c, err = inbox.ParseClaim(id, sha, s.git(s.bare, "log", "-1", "--format=%B", sha))
	if err != nil {
		s.t.Fatal(err)
	}
	return c, true
}

// status is the record of id in the agent's clone.
func status(t *testing.T, am *ralph.AgentMode, id string) inbox.Record {
	t.Helper()
	recs, err := inbox.Inbox{Root: am.Project}.Load()
	if err != nil {
		t.Fatal(err)
	}
	if i := inbox.Index(recs, id); i >= 0 {
		return recs[i]
	}
	t.Fatalf("no record %s in %v", id, recs)
	return inbox.Record{}
}

// said collects what the shared inbox says.
type said []string

func (s *said) say(format string, args ...any) {
	*s = append(*s, fmt.Sprintf(format, args...))
}

func (s said) has(part string) bool {
	for _, l := range s {
		if strings.Contains(l, part) {
			return true
		}
	}
	return false
}
