package worker

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/ralph/git"
)

// run runs git in dir, failing the test when it fails.
func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := git.Run(dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// cloneRepo is a repository with one commit on main and an identity of its own, and a clone
// worktree of it on branch w1.
func cloneRepo(t *testing.T, mt *testMachine) (repo string, cw *CreatedWorktree) {
	t.Helper()
	repo = gitRepo(t)
	run(t, repo, "branch", "-M", "main")
	run(t, repo, "config", "user.name", "Clone Tester")
	run(t, repo, "config", "user.email", "clone@swarm.invalid")
	cw, err := mt.CreateClone(repo, "w1", "", "")
	if err != nil {
		t.Fatal(err)
	}
	return repo, cw
}

// commitIn writes file in dir and commits it there; it returns the commit.
func commitIn(t *testing.T, dir, file string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(file+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "add", file)
	run(t, dir, "commit", "-q", "-m", "add "+file)
	return run(t, dir, "rev-parse", "HEAD")
}

// A clone worktree sits where a git worktree would, on the same branch made in the
// repository, borrows its objects, commits as the repository's user, and is nothing git
// worktree knows of.
func TestCloneIsMadeLikeAWorktree(t *testing.T) {
	mt := newTestMachine(t)
	repo, cw := cloneRepo(t, mt)
	path := filepath.Join(repo+"-worktrees", "w1")
	if cw.Info.Path != path || cw.Info.Branch != "w1" || cw.Info.BaseRepo != repo || !cw.Info.Clone {
		t.Fatalf("clone %+v, want %s on branch w1 of %s", cw.Info, path, repo)
	}
	if got := run(t, repo, "rev-parse", "w1"); got != run(t, repo, "rev-parse", "HEAD") {
		t.Errorf("the branch in the repository is at %s, want HEAD", got)
	}
	if n := strings.Count(run(t, repo, "worktree", "list", "--porcelain"), "worktree "); n != 1 {
		t.Errorf("git worktree list shows %d worktrees, want the repository's alone", n)
	}
	alternates, err := os.ReadFile(filepath.Join(path, ".git", "objects", "info", "alternates"))
	if err != nil || strings.TrimSpace(string(alternates)) != filepath.Join(repo, ".git", "objects") {
		t.Errorf("alternates %q, %v", alternates, err)
	}
	for key, want := range map[string]string{"user.name": "Clone Tester", "user.email": "clone@swarm.invalid", "remote.origin.url": repo} {
		if got := run(t, path, "config", "--local", "--get", key); got != want {
			t.Errorf("the clone's %s = %q, want %q", key, got, want)
		}
	}
	if got := run(t, path, "for-each-ref", "--format=%(refname)", "refs/heads"); got != "refs/heads/w1" {
		t.Errorf("the clone's branches: %q, want its own alone", got)
	}
	if got := run(t, path, "symbolic-ref", "HEAD"); got != "refs/heads/w1" {
		t.Errorf("the clone's HEAD: %q", got)
	}
	if _, err := os.Stat(filepath.Join(path, ".git", "config")); err != nil {
		t.Errorf("no .git directory of its own: %v", err)
	}
}

// The clone's commits stay in the clone until fetched back; then the repository's branch is
// the clone's. What the clone does to its own refs moves nothing in the repository.
func TestCloneCommitsComeBackAndNothingElseMoves(t *testing.T) {
	mt := newTestMachine(t)
	repo, cw := cloneRepo(t, mt)
	path := cw.Info.Path
	main := run(t, repo, "rev-parse", "main")
	commitIn(t, path, "a.txt")
	tip := commitIn(t, path, "b.txt")
	if _, err := git.Run(repo, "cat-file", "-e", tip); err == nil {
		t.Error("the clone's commit is in the repository before it is fetched back")
	}
	if git.Head(repo) != main || run(t, repo, "rev-parse", "w1") != main {
		t.Error("committing in the clone moved the repository")
	}
	run(t, path, "branch", "-f", "main", "HEAD~1")
	run(t, path, "update-ref", "refs/heads/other", "HEAD")
	if err := FetchBack(&cw.Info); err != nil {
		t.Fatal(err)
	}
	if got := run(t, repo, "rev-parse", "w1"); got != tip {
		t.Errorf("the repository's w1 is at %s after fetching back, want the clone's %s", got, tip)
	}
	if got := run(t, repo, "rev-parse", "main"); got != main {
		t.Errorf("git branch -f main in the clone moved the repository's main to %s", got)
	}
	if git.BranchExists(repo, "other") {
		t.Error("a branch made in the clone appeared in the repository")
	}
	if got := run(t, repo, "log", "-1", "--format=%an", "w1"); got != "Clone Tester" {
		t.Errorf("the clone's commit is by %q, want the repository's user", got)
	}
	if err := FetchBack(&cw.Info); err != nil {
		t.Errorf("fetching back again: %v", err)
	}
}

// A branch checked out in the repository is not fetched into, with a clear reason, nor is a
// branch the clone lost.
func TestFetchBackRefusals(t *testing.T) {
	mt := newTestMachine(t)
	repo, cw := cloneRepo(t, mt)
	commitIn(t, cw.Info.Path, "a.txt")
	run(t, repo, "checkout", "-q", "w1")
	err := FetchBack(&cw.Info)
	if err == nil || !strings.Contains(err.Error(), "cannot bring branch w1 back from its clone "+cw.Info.Path) ||
		!strings.Contains(err.Error(), "w1 is checked out at "+repo) {
		t.Errorf("fetching into a checked-out branch: %v", err)
	}
	run(t, repo, "checkout", "-q", "main")
	run(t, cw.Info.Path, "checkout", "-q", "-b", "elsewhere")
	run(t, cw.Info.Path, "branch", "-D", "w1")
	if err := FetchBack(&cw.Info); err == nil || !strings.Contains(err.Error(), "the clone has no branch w1 any more") {
		t.Errorf("fetching a branch the clone deleted: %v", err)
	}
}

// Removing a clone: kept when dirty unless forced, as a worktree is; its branch brought back
// first, so its commits outlive it; kept when its branch cannot be brought back.
func TestCloneRemovalKeepsTheBranch(t *testing.T) {
	mt := newTestMachine(t)
	repo, cw := cloneRepo(t, mt)
	tip := commitIn(t, cw.Info.Path, "a.txt")
	if err := os.WriteFile(filepath.Join(cw.Info.Path, "new.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if mt.RemoveWorktree(&cw.Info, false) {
		t.Fatal("removed a dirty clone without force")
	}
	if !strings.Contains(mt.Warnings.String(), "worktree "+cw.Info.Path+" has uncommitted changes; kept it (use --force-dirty") {
		t.Errorf("warnings %q", mt.Warnings.String())
	}
	if !mt.RemoveWorktree(&cw.Info, true) {
		t.Fatalf("did not remove a dirty clone with force: %s", mt.Warnings.String())
	}
	if _, err := os.Stat(cw.Info.Path); !os.IsNotExist(err) {
		t.Errorf("clone still there: %v", err)
	}
	if got := run(t, repo, "rev-parse", "w1"); got != tip {
		t.Errorf("after removal the repository's w1 is at %s, want the clone's commit %s", got, tip)
	}
	if !mt.RemoveWorktree(&cw.Info, false) {
		t.Error("a clone already gone is not taken as removed")
	}

	mt.Warnings.Reset()
	cw2, err := mt.CreateClone(repo, "w2", "", "")
	if err != nil {
		t.Fatal(err)
	}
	commitIn(t, cw2.Info.Path, "b.txt")
	run(t, repo, "checkout", "-q", "w2")
	if mt.RemoveWorktree(&cw2.Info, true) {
		t.Error("removed a clone whose branch could not be brought back")
	}
	if _, err := os.Stat(cw2.Info.Path); err != nil || !strings.Contains(mt.Warnings.String(), "w2 is checked out at") ||
		!strings.Contains(mt.Warnings.String(), "the worktree is kept") {
		t.Errorf("clone %v, warnings %q", err, mt.Warnings.String())
	}
}

// A clone is refused where a worktree would be: a path taken, a branch checked out, a branch
// another worker's clone holds; a spawn that fails leaves nothing.
func TestCloneRefusals(t *testing.T) {
	mt := newTestMachine(t)
	repo, cw := cloneRepo(t, mt)
	if _, err := mt.CreateClone(repo, "w1", "", ""); err == nil || !strings.Contains(err.Error(), "worktree path "+cw.Info.Path+" already exists") {
		t.Errorf("a second clone at the same path: %v", err)
	}
	_, err := mt.CreateClone(repo, "on-main", "main", "")
	if err == nil || !strings.Contains(err.Error(), "cannot create worktree on existing branch 'main': it is checked out at "+repo) {
		t.Errorf("a clone on the checked-out branch: %v", err)
	}
	if _, err := os.Stat(filepath.Join(repo+"-worktrees", "on-main")); !os.IsNotExist(err) {
		t.Errorf("a refused clone left its directory: %v", err)
	}
	spawn := func(name, branch string, clone bool) error {
		_, err := mt.Spawn(SpawnOptions{Name: name, Tmux: true, Argv: []string{"sh"}, Cwd: repo, Worktree: true,
			Branch: branch, CloneWorktree: clone})
		return err
	}
	if err := spawn("a", "", true); err != nil {
		t.Fatal(err)
	}
	if rec := mt.record("a"); rec.Worktree == nil || !rec.Worktree.Clone || rec.Cwd != rec.Worktree.Path {
		t.Fatalf("record %+v", rec)
	}
	for _, clone := range []bool{true, false} {
		err := spawn("b", "a", clone)
		if err == nil || !strings.Contains(err.Error(), "cannot create worktree on existing branch 'a': it is the branch of worker 'a'") {
			t.Errorf("a second worker (clone %v) on a clone's branch: %v", clone, err)
		}
	}
	if _, err := mt.Spawn(SpawnOptions{Name: "d", Tmux: true, Argv: []string{"no-such-command-here"}, Cwd: repo,
		Worktree: true, CloneWorktree: true}); err == nil || !strings.Contains(err.Error(), "command not found") {
		t.Errorf("spawn of a command that is not there: %v", err)
	}
	if git.BranchExists(repo, "d") {
		t.Error("a spawn that failed left the branch it made")
	}
	if mt.record("b") != nil || mt.record("d") != nil {
		t.Error("a refused spawn left a record")
	}
	for _, name := range []string{"b", "d"} {
		if _, err := os.Stat(filepath.Join(repo+"-worktrees", name)); !os.IsNotExist(err) {
			t.Errorf("a refused spawn left its worktree %s: %v", name, err)
		}
	}
}

// Respawn --clean-first makes a clone again as a clone, on its branch as it was brought back.
func TestRespawnCleanFirstMakesTheCloneAgain(t *testing.T) {
	mt := newTestMachine(t)
	repo := gitRepo(t)
	run(t, repo, "config", "user.name", "Clone Tester")
	run(t, repo, "config", "user.email", "clone@swarm.invalid")
	w, err := mt.Spawn(SpawnOptions{Name: "a", Tmux: true, Argv: []string{"sh"}, Cwd: repo, Worktree: true, CloneWorktree: true})
	if err != nil {
		t.Fatal(err)
	}
	tip := commitIn(t, w.Worktree.Path, "a.txt")
	w2, err := mt.Respawn(w, true, false)
	if err != nil {
		t.Fatal(err)
	}
	if w2.Worktree == nil || !w2.Worktree.Clone || w2.Worktree.Path != w.Worktree.Path {
		t.Fatalf("respawned worktree %+v", w2.Worktree)
	}
	if got := run(t, w2.Worktree.Path, "rev-parse", "HEAD"); got != tip {
		t.Errorf("the new clone is at %s, want the branch's commit %s", got, tip)
	}
}

// A sandbox that shows the agent the repository's .git read-only is what keeps a push from
// the clone from moving the repository's branches: without it the push goes through (which
// shows the test can fail), with it it is refused, while fetching the target still works.
func TestCloneWithTheRepositoryReadOnlyCannotPushIntoIt(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap (bwrap) not on PATH")
	}
	if out, err := exec.Command("bwrap", "--dev-bind", "/", "/", "true").CombinedOutput(); err != nil {
		t.Skipf("bubblewrap cannot run here: %v %s", err, out)
	}
	mt := newTestMachine(t)
	repo, cw := cloneRepo(t, mt)
	run(t, repo, "branch", "other")
	main, other := run(t, repo, "rev-parse", "main"), run(t, repo, "rev-parse", "other")
	commitIn(t, cw.Info.Path, "a.txt")
	gitDir := filepath.Join(repo, ".git")
	for _, to := range []string{"HEAD:main", "HEAD:other", ":other", "HEAD:refs/heads/made"} {
		cmd := exec.Command("bwrap", "--dev-bind", "/", "/", "--ro-bind", gitDir, gitDir,
			"git", "-C", cw.Info.Path, "push", "--quiet", "--force", "origin", to)
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Errorf("push --force origin %s went through a read-only repository:\n%s", to, out)
		}
	}
	if git.Head(repo) != main || run(t, repo, "rev-parse", "main") != main || run(t, repo, "rev-parse", "other") != other ||
		git.BranchExists(repo, "made") {
		t.Error("a push from the clone moved, deleted or made a branch of the read-only repository")
	}
	run(t, repo, "commit", "-q", "--allow-empty", "-m", "the target moves on")
	main = run(t, repo, "rev-parse", "main")
	fetch := exec.Command("bwrap", "--dev-bind", "/", "/", "--ro-bind", gitDir, gitDir, "git", "-C", cw.Info.Path, "fetch", "--quiet", "origin")
	if out, err := fetch.CombinedOutput(); err != nil {
		t.Errorf("git fetch origin from a read-only repository: %v\n%s", err, out)
	} else if got := run(t, cw.Info.Path, "rev-parse", "origin/main"); got != main {
		t.Errorf("after git fetch origin the clone sees main at %s, want %s", got, main)
	}
	run(t, cw.Info.Path, "push", "--quiet", "--force", "origin", "HEAD:other")
	if run(t, repo, "rev-parse", "other") == other {
		t.Error("without the read-only repository the push did not go through either: the test shows nothing")
	}
}
