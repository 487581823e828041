package worker

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo is a repository with one commit, in a directory of its own.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	repo := filepath.Join(t.TempDir(), "repo")
	for _, args := range [][]string{{"init", "-q", repo}, {"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t",
		"commit", "-q", "--allow-empty", "-m", "start"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return repo
}

// A worktree is made beside the repository; a dirty one is kept unless forced, and the
// branch outlives it.
func TestWorktreeCreateDirtyRemove(t *testing.T) {
	mt := newTestMachine(t)
	repo := gitRepo(t)
	cw, err := mt.CreateWorktree(repo, "w1", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(repo+"-worktrees", "w1"); cw.Info.Path != want || cw.Info.Branch != "w1" {
		t.Fatalf("worktree %+v, want %s on branch w1", cw.Info, want)
	}
	if _, err := mt.CreateWorktree(repo, "w1", "", ""); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("a second worktree at the same path: %v", err)
	}
	if err := os.WriteFile(filepath.Join(cw.Info.Path, "new.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if dirty, err := mt.WorktreeDirty(&cw.Info); err != nil || !dirty {
		t.Errorf("WorktreeDirty = %v, %v; want dirty", dirty, err)
	}
	if mt.RemoveWorktree(&cw.Info, false) {
		t.Error("removed a dirty worktree without force")
	}
	if !strings.Contains(mt.Warnings.String(), "has uncommitted changes; kept it") {
		t.Errorf("warnings %q", mt.Warnings.String())
	}
	if !mt.RemoveWorktree(&cw.Info, true) {
		t.Error("did not remove a dirty worktree with force")
	}
	if _, err := os.Stat(cw.Info.Path); !os.IsNotExist(err) {
		t.Errorf("worktree still there: %v", err)
	}
	if _, err := mt.CreateWorktree(t.TempDir(), "w2", "", ""); err == nil || !strings.Contains(err.Error(), "not in a git repository") {
		t.Errorf("outside a repository: %v", err)
	}
}
