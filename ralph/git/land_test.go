package git

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var ctx = context.Background()

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
	if err := ResetScratch(ctx, repo, scratch, old); err != nil {
		t.Fatal(err)
	}
	head, conflicts, err := MergeNoFF(ctx, scratch, "side", "Land w: side")
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
	if err := FastForward(ctx, paths[0], head); err != nil {
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
	if err := ResetScratch(ctx, repo, scratch, old); err != nil {
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
	if err := ResetScratch(ctx, repo, scratch, main); err != nil {
		t.Fatal(err)
	}
	_, conflicts, err := MergeNoFF(ctx, scratch, "side", "Land w: side")
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
	if err := CompareAndSwapRef(ctx, repo, "refs/heads/main", next, next); err == nil {
		t.Fatal("a ref not at old was moved")
	}
	if err := CompareAndSwapRef(ctx, repo, "refs/heads/main", next, old); err != nil {
		t.Fatal(err)
	}
	if got, _ := ResolveCommit(repo, "main"); got != next {
		t.Fatalf("main at %s, want %s", got, next)
	}
}

// hook installs an executable hook of the repository.
func hook(t *testing.T, repo, name, script string) {
	t.Helper()
	dir := filepath.Join(repo, ".git", "hooks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// A hook that refuses the merge is told by its last line, the checkout left as it was.
func TestMergeRefusedByAHookSaysWhy(t *testing.T) {
	repo := landRepo(t)
	mustRun(t, repo, "checkout", "-q", "side")
	writeCommit(t, repo, "b.txt", "b\n", "side work")
	mustRun(t, repo, "checkout", "-q", "--detach", "main")
	hook(t, repo, "pre-merge-commit", "echo checking; echo 'lint: 3 problems found' >&2; exit 1")
	before := Head(repo)
	_, conflicts, err := MergeNoFF(ctx, repo, "side", "Land w: side")
	if !errors.Is(err, ErrMergeRefused) || conflicts != nil || !strings.HasSuffix(err.Error(), ": lint: 3 problems found") {
		t.Fatalf("err %v, conflicts %v", err, conflicts)
	}
	if Head(repo) != before {
		t.Fatal("HEAD moved")
	}
	if st := mustRun(t, repo, "status", "--porcelain"); st != "" {
		t.Fatalf("the merge was left half done: %q", st)
	}
}

// A hook that never ends is ended with its group at the time limit, and the error says so.
func TestMergeHookThatHangsIsEndedAtTheTimeLimit(t *testing.T) {
	repo := landRepo(t)
	mustRun(t, repo, "checkout", "-q", "side")
	writeCommit(t, repo, "b.txt", "b\n", "side work")
	mustRun(t, repo, "checkout", "-q", "--detach", "main")
	pidFile := filepath.Join(t.TempDir(), "pid")
	hook(t, repo, "pre-merge-commit", "echo $$ > "+pidFile+"; sleep 60")
	bound, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := MergeNoFF(bound, repo, "side", "Land w: side")
	if !errors.Is(err, ErrTimedOut) || !strings.Contains(err.Error(), "git merge did not end within 500ms") {
		t.Fatalf("err %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("took %v", took)
	}
	data, _ := os.ReadFile(pidFile)
	if pid := strings.TrimSpace(string(data)); pid == "" {
		t.Fatal("the hook never ran")
	} else if _, err := os.Stat("/proc/" + pid); err == nil {
		if stat, _ := os.ReadFile("/proc/" + pid + "/stat"); !strings.Contains(string(stat), ") Z ") {
			t.Fatalf("the hook (pid %s) still runs", pid)
		}
	}
}
