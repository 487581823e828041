package land

import (
	"path/filepath"
	"testing"

	"github.com/swarm-dev/swarm/ralph/git"
)

// withRemote gives the fixture a bare origin holding main as upstream, and moveRemote, which
// pushes a commit of another clone's to origin's main.
func (f *fixture) withRemote() (bare string, moveRemote func()) {
	f.t.Helper()
	bare = filepath.Join(f.t.TempDir(), "origin.git")
	f.git("clone", "-q", "--bare", f.repo, bare)
	f.git("remote", "add", "origin", bare)
	f.git("fetch", "-q", "origin")
	f.git("branch", "-q", "--set-upstream-to=origin/main", "main")
	other := filepath.Join(f.t.TempDir(), "other")
	f.git("clone", "-q", bare, other)
	return bare, func() {
		for _, args := range [][]string{{"commit", "-q", "--allow-empty", "-m", "other"}, {"push", "-q", "origin", "HEAD:main"}} {
			if _, err := git.Run(other, args...); err != nil {
				f.t.Fatal(err)
			}
		}
	}
}

func TestLandPushesTheTarget(t *testing.T) {
	f := newFixture(t)
	bare, _ := f.withRemote()
	f.commit("one", "b.txt", "b\n")
	tip := f.git("rev-parse", "one")
	r, err := Land(f.dir, Candidate{Worker: "w-one", Branch: "one", Repo: f.repo, Target: "main", Tip: tip}, Options{Push: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.State != Landed || r.Pushed != "origin/main" {
		t.Fatalf("record %+v, want landed and pushed to origin/main", r)
	}
	if remote, _ := git.ResolveCommit(bare, "refs/heads/main"); remote != r.Commit || f.git("rev-parse", "main") != r.Commit {
		t.Fatalf("origin main %s, local main %s, landed %s", remote, f.git("rev-parse", "main"), r.Commit)
	}
}

func TestLandPushRejectedRelandsOnTheRemoteHead(t *testing.T) {
	f := newFixture(t)
	bare, moveRemote := f.withRemote()
	moveRemote()
	theirs, _ := git.ResolveCommit(bare, "refs/heads/main")
	f.commit("one", "b.txt", "b\n")
	tip := f.git("rev-parse", "one")
	r, err := Land(f.dir, Candidate{Worker: "w-one", Branch: "one", Repo: f.repo, Target: "main", Tip: tip}, Options{Push: true, TestCommand: "test -f b.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if r.State != Landed || r.Pushed != "origin/main" || r.TestedCommit != r.Commit {
		t.Fatalf("record %+v, want landed, tested and pushed", r)
	}
	remote, _ := git.ResolveCommit(bare, "refs/heads/main")
	if remote != r.Commit || f.git("rev-parse", "main") != r.Commit {
		t.Fatalf("origin main %s, local main %s, landed %s", remote, f.git("rev-parse", "main"), r.Commit)
	}
	if parent := f.git("rev-parse", r.Commit+"^1"); parent != theirs {
		t.Fatalf("landed on %s, want on the remote's new head %s", parent, theirs)
	}
	if !git.IsAncestor(f.repo, tip, r.Commit) {
		t.Fatal("the branch is not in what was pushed")
	}
}

func TestLandPushSendsBackWhatBreaksOnTheRemoteHead(t *testing.T) {
	f := newFixture(t)
	bare, moveRemote := f.withRemote()
	moveRemote()
	before, _ := git.ResolveCommit(bare, "refs/heads/main")
	f.commit("one", "b.txt", "b\n")
	tip := f.git("rev-parse", "one")
	// Green on the local target, red on the remote's: the remote's commit is empty, so the
	// test tells them apart by the commit count.
	test := `test "$(git rev-list --count HEAD)" -lt 4`
	r, err := Land(f.dir, Candidate{Worker: "w-one", Branch: "one", Repo: f.repo, Target: "main", Tip: tip}, Options{Push: true, TestCommand: test})
	if err != nil {
		t.Fatal(err)
	}
	if r.State != BreaksTests || r.Pushed != "" {
		t.Fatalf("record %+v, want breaks tests, not pushed", r)
	}
	if remote, _ := git.ResolveCommit(bare, "refs/heads/main"); remote != before {
		t.Fatal("the remote moved")
	}
}

// A landing whose push did not go through is pushed by a later run: the target as it is then,
// merged again on top of the remote when that moved meanwhile.
func TestPushLandedPushesAnEarlierLanding(t *testing.T) {
	f := newFixture(t)
	bare, moveRemote := f.withRemote()
	f.commit("one", "b.txt", "b\n")
	r := f.land("one", "")
	if r.State != Landed || r.Pushed != "" {
		t.Fatalf("record %+v, want landed, not pushed", r)
	}
	moveRemote()
	tip := f.git("rev-parse", "one")
	c := Candidate{Worker: "w-one", Branch: "one", Repo: f.repo, Target: "main", Tip: tip, Landed: true, Record: r}
	if step, _ := Next(c, false, true); step != StepPush {
		t.Fatalf("Next = %v, want StepPush", step)
	}
	pushed, err := PushLanded(f.dir, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	remote, _ := git.ResolveCommit(bare, "refs/heads/main")
	if pushed.Pushed != "origin/main" || remote != pushed.Commit || f.git("rev-parse", "main") != remote {
		t.Fatalf("record %+v; origin main %s, local main %s", pushed, remote, f.git("rev-parse", "main"))
	}
	// Merged again on the remote's head: the branch is there, on top of the other clone's work.
	if !git.IsAncestor(f.repo, tip, remote) || f.git("log", "-1", "--format=%s", remote+"^1") != "other" {
		t.Fatalf("the remote %s does not hold the branch %s on top of the other commit", remote, tip)
	}
	again, err := LoadRecord(f.dir, "w-one")
	if err != nil || again.Pushed != "origin/main" {
		t.Fatalf("saved record %+v, %v", again, err)
	}
	c.Record = again
	if step, _ := Next(c, false, true); step != StepSkip {
		t.Fatalf("Next after the push = %v, want StepSkip", step)
	}
}

// A remote that already holds the landing (pushed by hand, say) is only recorded.
func TestPushLandedRecordsARemoteThatHasIt(t *testing.T) {
	f := newFixture(t)
	bare, _ := f.withRemote()
	f.commit("one", "b.txt", "b\n")
	r := f.land("one", "")
	f.git("push", "-q", "origin", "main")
	remoteBefore, _ := git.ResolveCommit(bare, "refs/heads/main")
	c := Candidate{Worker: "w-one", Branch: "one", Repo: f.repo, Target: "main", Tip: f.git("rev-parse", "one"), Landed: true, Record: r}
	pushed, err := PushLanded(f.dir, c, Options{})
	if err != nil || pushed.Pushed != "origin/main" {
		t.Fatalf("record %+v, %v", pushed, err)
	}
	if remote, _ := git.ResolveCommit(bare, "refs/heads/main"); remote != remoteBefore {
		t.Fatalf("origin main moved from %s to %s", remoteBefore, remote)
	}
}
