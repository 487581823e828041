package git

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMainRoot(t *testing.T) {
	dir := newRepo(t)
	commit(t, dir, "a.txt", "a\n")
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := MainRoot(sub); err != nil || got != dir {
		t.Errorf("MainRoot(subdirectory) = %q, %v; want %q", got, err, dir)
	}
	linked := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-linked")
	if err := AddWorktreeNewBranch(dir, linked, "side"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(linked) })
	if got, err := MainRoot(linked); err != nil || got != dir {
		t.Errorf("MainRoot(linked worktree) = %q, %v; want the main repository %q", got, err, dir)
	}
	if _, err := MainRoot(t.TempDir()); err == nil {
		t.Error("MainRoot outside a repository succeeded")
	}
}

func TestBranches(t *testing.T) {
	dir := newRepo(t)
	commit(t, dir, "a.txt", "a\n")
	for name, want := range map[string]bool{"fix-42": true, "team/fix": true, "bad..name": false, "-x": false, "a b": false} {
		if got := ValidBranch(dir, name); got != want {
			t.Errorf("ValidBranch(%q) = %v, want %v", name, got, want)
		}
	}
	if !BranchExists(dir, "main") || BranchExists(dir, "nope") {
		t.Error("BranchExists: want main and not nope")
	}
	mustRun(t, dir, "branch", "unmerged")
	if err := DeleteBranch(dir, "unmerged"); err != nil || BranchExists(dir, "unmerged") {
		t.Errorf("DeleteBranch: %v; branch still there: %v", err, BranchExists(dir, "unmerged"))
	}
	if err := DeleteBranch(dir, "nope"); err == nil || !strings.HasPrefix(err.Error(), "git branch: ") {
		t.Errorf("DeleteBranch(missing) = %v, want git branch's message", err)
	}
}

func TestWorktreeLifecycle(t *testing.T) {
	dir := newRepo(t)
	commit(t, dir, "a.txt", "a\n")
	wt := filepath.Join(t.TempDir(), "w1")
	if err := AddWorktreeNewBranch(dir, wt, "w1"); err != nil {
		t.Fatal(err)
	}
	if got := mustRun(t, wt, "rev-parse", "--abbrev-ref", "HEAD"); got != "w1" {
		t.Errorf("new worktree on branch %q, want w1", got)
	}
	if err := AddWorktreeNewBranch(dir, filepath.Join(t.TempDir(), "again"), "w1"); err == nil {
		t.Error("AddWorktreeNewBranch with an existing branch succeeded")
	}

	if dirty, err := Dirty(wt); err != nil || dirty {
		t.Errorf("Dirty(fresh worktree) = %v, %v", dirty, err)
	}
	if err := os.WriteFile(filepath.Join(wt, "new.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if dirty, err := Dirty(wt); err != nil || !dirty {
		t.Errorf("Dirty(untracked file) = %v, %v; want dirty", dirty, err)
	}
	if err := RemoveWorktree(dir, wt, false); err == nil || !strings.HasPrefix(err.Error(), "git worktree: ") {
		t.Errorf("RemoveWorktree(dirty) = %v, want git's refusal", err)
	}
	if err := RemoveWorktree(dir, wt, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wt); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("forced removal left %s (%v)", wt, err)
	}
	if !BranchExists(dir, "w1") {
		t.Error("removing the worktree deleted its branch")
	}

	// The branch is reused by a later worktree; one whose directory vanished is pruned.
	wt2 := filepath.Join(t.TempDir(), "w1")
	if err := AddWorktree(dir, wt2, "w1"); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(wt2); err != nil {
		t.Fatal(err)
	}
	PruneWorktrees(dir)
	if list := mustRun(t, dir, "worktree", "list", "--porcelain"); strings.Contains(list, wt2) {
		t.Errorf("worktree %s still listed after the prune:\n%s", wt2, list)
	}
	if _, err := Dirty(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("Dirty of a missing directory succeeded")
	}
}
