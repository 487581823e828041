package git

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What the loop does in a worktree (the commits of an iteration, a test run on an earlier
// commit on the side, reverts) it does in a clone as it is, and the clone's branch comes back
// whole.
func TestCloneWorktreeServesTheLoopAndComesBack(t *testing.T) {
	repo := newRepo(t)
	start := commit(t, repo, "a.txt", "a\n")
	path := filepath.Join(t.TempDir(), "w1")
	if err := CreateBranch(repo, "w1", start); err != nil {
		t.Fatal(err)
	}
	if err := CloneWorktree(repo, path, "w1", start); err != nil {
		t.Fatal(err)
	}
	if got := Head(path); got != start {
		t.Fatalf("clone at %s, want %s", got, start)
	}
	commit(t, path, "b.txt", "b\n")
	bad := commit(t, path, "c.txt", "c\n")
	if got, err := CommitsSince(path, start); err != nil || len(got) != 2 {
		t.Fatalf("CommitsSince = %v, %v", got, err)
	}
	seen := ""
	if err := WithCheckout(path, start, func(wt string) error {
		seen = readFile(t, filepath.Join(wt, "a.txt"))
		return nil
	}); err != nil || seen != "a\n" {
		t.Fatalf("WithCheckout in a clone: %q, %v", seen, err)
	}
	if done, err := Revert(path, []string{bad}); err != nil || len(done) != 1 {
		t.Fatalf("Revert in a clone: %v, %v", done, err)
	}
	tip := Head(path)
	if err := FetchBack(repo, path, "w1"); err != nil {
		t.Fatal(err)
	}
	if got := mustRun(t, repo, "rev-parse", "w1"); got != tip {
		t.Errorf("w1 in the repository at %s, want the clone's %s", got, tip)
	}
	if got := mustRun(t, repo, "show", "w1:b.txt"); got != "b" {
		t.Errorf("the clone's file in the repository: %q", got)
	}
	if out := mustRun(t, repo, "worktree", "list", "--porcelain"); strings.Count(out, "worktree ") != 1 {
		t.Errorf("the repository has worktrees besides its own:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(repo, ".git", "FETCH_HEAD")); !os.IsNotExist(err) {
		t.Errorf("fetching back wrote FETCH_HEAD in the repository: %v", err)
	}
}

// A clone that cannot be made leaves nothing.
func TestCloneWorktreeThatFailsLeavesNothing(t *testing.T) {
	repo := newRepo(t)
	commit(t, repo, "a.txt", "a\n")
	path := filepath.Join(t.TempDir(), "w1")
	if err := CloneWorktree(repo, path, "w1", strings.Repeat("0", 40)); err == nil {
		t.Fatal("a clone at a commit that is not there succeeded")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a failed clone left %s: %v", path, err)
	}
}
