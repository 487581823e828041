package land

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/state"
)

// fixture is a repository on main, checked out, with branches made by branch, and a state
// directory.
type fixture struct {
	t    *testing.T
	repo string
	dir  *state.Dir
}

func newFixture(t *testing.T) *fixture {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	for _, who := range []string{"AUTHOR", "COMMITTER"} {
		t.Setenv("GIT_"+who+"_NAME", "Swarm Test")
		t.Setenv("GIT_"+who+"_EMAIL", "test@swarm.invalid")
	}
	repo, _ := filepath.EvalSymlinks(t.TempDir())
	d, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t, repo, d}
	f.git("init", "-q", "-b", "main")
	f.commit("main", "a.txt", "a\n")
	return f
}

func (f *fixture) git(args ...string) string {
	f.t.Helper()
	out, err := git.Run(f.repo, args...)
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

// commit writes file on branch (made from main if new) and commits it; main stays checked out.
func (f *fixture) commit(branch, file, content string) string {
	f.t.Helper()
	if branch != "main" {
		if !git.BranchExists(f.repo, branch) {
			f.git("branch", branch, "main")
		}
		f.git("checkout", "-q", branch)
		defer f.git("checkout", "-q", "main")
	}
	if err := os.WriteFile(filepath.Join(f.repo, file), []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
	f.git("add", file)
	f.git("commit", "-q", "-m", branch+": "+file)
	return f.git("rev-parse", "HEAD")
}

func (f *fixture) land(branch, test string) *Record {
	f.t.Helper()
	tip := f.git("rev-parse", branch)
	r, err := Land(f.dir, Candidate{Worker: "w-" + branch, Branch: branch, Repo: f.repo, Target: "main", Tip: tip}, Options{TestCommand: test})
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}

func TestLandMergesTestsAndMovesTheCheckout(t *testing.T) {
	f := newFixture(t)
	f.commit("one", "b.txt", "b\n")
	r := f.land("one", "test -f b.txt")
	if r.State != Landed || r.Commit == "" || r.Commit != f.git("rev-parse", "main") {
		t.Fatalf("record %+v, main at %s", r, f.git("rev-parse", "main"))
	}
	if _, err := os.Stat(filepath.Join(f.repo, "b.txt")); err != nil {
		t.Fatal("the checkout of main did not follow")
	}
	if msg := f.git("log", "-1", "--format=%s", "main"); msg != "Land w-one: one" {
		t.Fatalf("merge message %q", msg)
	}
	saved, err := LoadRecord(f.dir, "w-one")
	if err != nil || saved.State != Landed {
		t.Fatalf("saved record %+v %v", saved, err)
	}
}

func TestLandSendsBackConflictsAndRedTests(t *testing.T) {
	f := newFixture(t)
	f.commit("left", "a.txt", "left\n")
	f.commit("right", "a.txt", "right\n")
	f.commit("red", "c.txt", "c\n")
	if r := f.land("left", ""); r.State != Landed {
		t.Fatalf("left: %+v", r)
	}
	before := f.git("rev-parse", "main")
	r := f.land("right", "")
	if r.State != NeedsRebase || !slices.Equal(r.Conflicts, []string{"a.txt"}) {
		t.Fatalf("right: %+v", r)
	}
	r = f.land("red", "echo the suite is red; exit 3")
	if r.State != BreaksTests || r.OutputFile == "" {
		t.Fatalf("red: %+v", r)
	}
	if out, _ := os.ReadFile(r.OutputFile); string(out) != "the suite is red\n" {
		t.Fatalf("output kept: %q", out)
	}
	if now := f.git("rev-parse", "main"); now != before {
		t.Fatalf("main moved to %s", now)
	}
}

func TestLandLeavesADirtyCheckoutAlone(t *testing.T) {
	f := newFixture(t)
	f.commit("one", "b.txt", "b\n")
	before := f.git("rev-parse", "main")
	if err := os.WriteFile(filepath.Join(f.repo, "a.txt"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := f.land("one", "")
	if r.State != Queued || r.TestedCommit == "" || f.git("rev-parse", "main") != before {
		t.Fatalf("record %+v", r)
	}
}

func TestLandMovesAnUncheckedOutTargetByCompareAndSwap(t *testing.T) {
	f := newFixture(t)
	f.commit("one", "b.txt", "b\n")
	f.git("checkout", "-q", "--detach")
	r := f.land("one", "")
	if r.State != Landed || f.git("rev-parse", "main") != r.Commit {
		t.Fatalf("record %+v", r)
	}
}

func TestLandOfABranchAlreadyOnTheTargetChangesNothing(t *testing.T) {
	f := newFixture(t)
	f.commit("one", "b.txt", "b\n")
	first := f.land("one", "")
	again := f.land("one", "exit 1")
	if again.State != Landed || again.Commit != first.Commit || f.git("rev-parse", "main") != first.Commit {
		t.Fatalf("first %+v, again %+v", first, again)
	}
}

func TestConfigTestCommandNeedsConsent(t *testing.T) {
	f := newFixture(t)
	if test, err := ConfigTestCommand(f.repo); err != nil || test != "" {
		t.Fatalf("without swarm.toml: %q, %v", test, err)
	}
	if err := os.WriteFile(filepath.Join(f.repo, "swarm.toml"), []byte("[regent]\ntest_command = \"make test\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ConfigTestCommand(f.repo); !errors.Is(err, config.ErrNotAllowed) {
		t.Fatalf("not allowed yet: %v", err)
	}
	if _, err := config.Allow(filepath.Join(f.repo, "swarm.toml"), time.Now()); err != nil {
		t.Fatal(err)
	}
	if test, err := ConfigTestCommand(f.repo); err != nil || test != "make test" {
		t.Fatalf("allowed: %q, %v", test, err)
	}
	// Changed by someone else, the tests it names are not dropped without a word.
	path := filepath.Join(f.repo, "swarm.toml")
	if err := os.WriteFile(path, []byte("[regent]\ntest_command = \"true\"\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	_, err := ConfigTestCommand(f.repo)
	if !errors.Is(err, config.ErrNotAllowed) || !strings.Contains(err.Error(), "names the tests to land with, and others can write to it (-rw-rw-rw-), and it changed since you allowed it") {
		t.Fatalf("a file others can write to: %v", err)
	}
}
