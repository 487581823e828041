package git

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// landRepo is a repository on main with one file and a branch "side" that changes another.
func landRepo(t *testing.T) string {
	t.Helper()
	repo := newRepo(t)
	writeCommit(t, repo, "a.txt", "a\n", "first")
	mustRun(t, repo, "branch", "side")
	return repo
}

func writeCommit(t *testing.T, dir, file, content, msg string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, dir, "add", file)
	mustRun(t, dir, "commit", "-q", "-m", msg)
	return mustRun(t, dir, "rev-parse", "HEAD")
}

func TestMergeInScratchAndMoveTarget(t *testing.T) {
	repo := landRepo(t)
	mustRun(t, repo, "checkout", "-q", "side")
	writeCommit(t, repo, "b.txt", "b\n", "side work")
	mustRun(t, repo, "checkout", "-q", "main")
	old, err := ResolveCommit(repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	scratch := filepath.Join(t.TempDir(), "scratch")
	if err := ResetScratch(repo, scratch, old); err != nil {
		t.Fatal(err)
	}
	head, conflicts, err := MergeNoFF(scratch, "side", "Land w: side")
	if err != nil || conflicts != nil {
		t.Fatalf("merge: %v %v", err, conflicts)
	}
	if !IsAncestor(repo, old, head) || IsAncestor(repo, head, old) {
		t.Fatalf("merge commit %s does not descend from %s", head, old)
	}
	// The user's checkout of main is moved the way git allows: a fast-forward.
	paths, err := CheckoutsOf(repo, "main")
	if err != nil || len(paths) != 1 {
		t.Fatalf("checkouts of main: %v %v", paths, err)
	}
	if err := FastForward(paths[0], head); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(repo, "b.txt")); err != nil {
		t.Fatalf("the checkout's files did not follow: %v", err)
	}
	if b, _ := CurrentBranch(repo); b != "main" {
		t.Fatalf("current branch %q", b)
	}
	// A second reset throws away what a run left behind.
	_ = os.WriteFile(filepath.Join(scratch, "junk"), []byte("x"), 0o644)
	if err := ResetScratch(repo, scratch, old); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(scratch, "junk")); !os.IsNotExist(err) {
		t.Fatalf("junk survived the reset: %v", err)
	}
}

func TestMergeConflictNamesFilesAndAborts(t *testing.T) {
	repo := landRepo(t)
	mustRun(t, repo, "checkout", "-q", "side")
	writeCommit(t, repo, "a.txt", "side\n", "side edits a")
	mustRun(t, repo, "checkout", "-q", "main")
	main := writeCommit(t, repo, "a.txt", "main\n", "main edits a")
	scratch := filepath.Join(t.TempDir(), "scratch")
	if err := ResetScratch(repo, scratch, main); err != nil {
		t.Fatal(err)
	}
	_, conflicts, err := MergeNoFF(scratch, "side", "Land w: side")
	if !errors.Is(err, ErrConflict) || !slices.Equal(conflicts, []string{"a.txt"}) {
		t.Fatalf("got %v %v, want a conflict on a.txt", err, conflicts)
	}
	if Head(scratch) != main {
		t.Fatalf("scratch moved to %s", Head(scratch))
	}
	if dirty, _ := Dirty(scratch); dirty {
		t.Fatal("the aborted merge left changes")
	}
}

func TestCompareAndSwapRefRefusesAMovedRef(t *testing.T) {
	repo := landRepo(t)
	old := mustRun(t, repo, "rev-parse", "main")
	mustRun(t, repo, "checkout", "-q", "side")
	next := writeCommit(t, repo, "b.txt", "b\n", "next")
	if err := CompareAndSwapRef(repo, "refs/heads/main", next, next); err == nil {
		t.Fatal("a ref not at old was moved")
	}
	if err := CompareAndSwapRef(repo, "refs/heads/main", next, old); err != nil {
		t.Fatal(err)
	}
	if got, _ := ResolveCommit(repo, "main"); got != next {
		t.Fatalf("main at %s, want %s", got, next)
	}
}
