package sharedinbox

import (
	"path/filepath"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/ralph/inbox"
)

// committed is the agent's spec committed in its clone, writing file with content.
func committed(t *testing.T, s *shared, am *ralph.AgentMode, file, content string) string {
	t.Helper()
	s.write(am.Project, file, content)
	hash, err := git.CommitAll(am.Project, "ralph: complete "+am.SpecID, ralph.AgentKeep)
	if err != nil {
		t.Fatal(err)
	}
	return hash
}

func TestDeliverPushesTheSpecsOwnBranchAndMarksItDone(t *testing.T) {
	s := newShared(t, "q-aaaa")
	am := working(t, s, "a")
	hash := committed(t, s, am, "a.txt", "a\n")
	var out said
	Deliver(am, hash, t0, out.say)
	full := s.git(am.Project, "rev-parse", hash)
	if got := s.git(s.bare, "rev-parse", "refs/heads/swarm/spec/q-aaaa"); got != full {
		t.Errorf("spec branch at %s, want %s", got, full)
	}
	c, _ := s.claimOnRemote("q-aaaa")
	if c.State != inbox.ClaimDone || c.Landed != full || c.LandedOn != "swarm/spec/q-aaaa" || len(am.Session.Undelivered) != 0 {
		t.Errorf("claim %+v, undelivered %v", c, am.Session.Undelivered)
	}
	if !out.has("PUSH: q-aaaa q-aaaa.md is " + full[:7] + " on origin/swarm/spec/q-aaaa") {
		t.Errorf("said %q", out)
	}
}

func TestDeliverLandsACleanSpecOnTheBranch(t *testing.T) {
	s := newShared(t, "q-aaaa")
	am := working(t, s, "a")
	am.Shared.LandOn = "main"
	// main moved on since the clone was made, elsewhere in the tree.
	s.write(s.seed, "other.txt", "other\n")
	s.git(s.seed, "add", "-A")
	s.git(s.seed, "commit", "-q", "-m", "other")
	s.git(s.seed, "push", "-q", "origin", "main")
	before := s.git(s.bare, "rev-parse", "main")
	Deliver(am, committed(t, s, am, "a.txt", "a\n"), t0, func(string, ...any) {})
	head := s.git(s.bare, "rev-parse", "main")
	if parent := s.git(s.bare, "rev-parse", head+"^"); parent != before {
		t.Errorf("landed on %s, want on %s", parent, before)
	}
	if c, _ := s.claimOnRemote("q-aaaa"); c.LandedOn != "main" || c.Landed != head {
		t.Errorf("claim %+v", c)
	}
	if _, err := git.Run(s.bare, "rev-parse", "--verify", "--quiet", "refs/heads/swarm/spec/q-aaaa"); err == nil {
		t.Error("a landed spec has its own branch too")
	}
}

func TestDeliverPushesASpecThatDoesNotApplyAsItsOwnBranch(t *testing.T) {
	s := newShared(t, "q-aaaa")
	am := working(t, s, "a")
	am.Shared.LandOn = "main"
	s.write(s.seed, "base.txt", "theirs\n")
	s.git(s.seed, "commit", "-q", "-am", "theirs")
	s.git(s.seed, "push", "-q", "origin", "main")
	before := s.git(s.bare, "rev-parse", "main")
	var out said
	Deliver(am, committed(t, s, am, "base.txt", "mine\n"), t0, out.say)
	if s.git(s.bare, "rev-parse", "main") != before {
		t.Error("main moved")
	}
	if c, _ := s.claimOnRemote("q-aaaa"); c.LandedOn != "swarm/spec/q-aaaa" {
		t.Errorf("claim %+v", c)
	}
	if !out.has("LAND: q-aaaa q-aaaa.md not landed on origin/main: it does not apply cleanly (merge conflict in base.txt); pushed as swarm/spec/q-aaaa instead") {
		t.Errorf("said %q", out)
	}
}

func TestDeliverKeepsWhatTheRemoteDidNotTakeForTheNextFetch(t *testing.T) {
	s := newShared(t, "q-aaaa", "q-bbbb")
	am := working(t, s, "a")
	hash := committed(t, s, am, "a.txt", "a\n")
	s.git(am.Project, "remote", "set-url", "origin", filepath.Join(s.root, "nowhere"))
	var out said
	Deliver(am, hash, t0, out.say)
	if len(am.Session.Undelivered) != 1 || am.Session.Undelivered[0].LandedOn != "" {
		t.Fatalf("undelivered %+v", am.Session.Undelivered)
	}
	if c, _ := s.claimOnRemote("q-aaaa"); c.State != inbox.ClaimActive {
		t.Errorf("claim %+v", c)
	}
	// The remote is back: the next FETCH pushes it first.
	s.git(am.Project, "remote", "set-url", "origin", s.bare)
	am.SpecEnded(true)
	rec, _, err := Queue{}.Fetch(am, t0, out.say)
	if err != nil || rec == nil || rec.ID != "q-bbbb" || len(am.Session.Undelivered) != 0 {
		t.Fatalf("fetched %+v %v, undelivered %+v", rec, err, am.Session.Undelivered)
	}
	if c, _ := s.claimOnRemote("q-aaaa"); c.State != inbox.ClaimDone || c.LandedOn != "swarm/spec/q-aaaa" {
		t.Errorf("claim %+v", c)
	}
}
