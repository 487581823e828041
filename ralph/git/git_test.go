package git

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// isolate gives git a fixed identity and no configuration but its own: a fresh HOME, no
// system file, no global file outside the test's directory, and no repository inherited from
// the environment (a test run from a git hook has GIT_DIR set).
func isolate(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY"} {
		t.Setenv(k, "") // restores the old value at the end
		os.Unsetenv(k)
	}
	for _, who := range []string{"AUTHOR", "COMMITTER"} {
		t.Setenv("GIT_"+who+"_NAME", "Swarm Test")
		t.Setenv("GIT_"+who+"_EMAIL", "test@swarm.invalid")
	}
}

// newRepo makes an empty repository on branch main in a fresh directory and returns its
// path with symlinks resolved, as git reports paths.
func newRepo(t *testing.T) string {
	t.Helper()
	isolate(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, dir, "init", "-q", "-b", "main")
	return dir
}

func mustRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := Run(dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// commit writes file with content and commits it; it returns the new commit.
func commit(t *testing.T, dir, file, content string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, dir, "add", file)
	mustRun(t, dir, "commit", "-q", "-m", "write "+file)
	return mustRun(t, dir, "rev-parse", "HEAD")
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRunTrimsOutputAndReportsGitsMessage(t *testing.T) {
	dir := newRepo(t)
	if out := mustRun(t, dir, "rev-parse", "--show-toplevel"); out != dir {
		t.Errorf("Run output %q, want %q without the newline", out, dir)
	}
	_, err := Run(t.TempDir(), "rev-parse", "--show-toplevel")
	if err == nil || !strings.HasPrefix(err.Error(), "git rev-parse: fatal: not a git repository") {
		t.Errorf("Run outside a repository: %v, want git's own message after \"git rev-parse: \"", err)
	}
}

func TestHead(t *testing.T) {
	dir := newRepo(t)
	if h := Head(dir); h != "" {
		t.Errorf("Head before the first commit = %q, want none", h)
	}
	c := commit(t, dir, "a.txt", "a\n")
	if h := Head(dir); h != c {
		t.Errorf("Head = %q, want %q", h, c)
	}
	if h := Head(t.TempDir()); h != "" {
		t.Errorf("Head outside a repository = %q, want none", h)
	}
	sub := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	if h := Head(sub); h != c {
		t.Errorf("Head in a subdirectory = %q, want %q", h, c)
	}
}

// git is spared outside a repository, and asked wherever one may be: in and under a work
// tree, in a bare repository, wherever GIT_DIR points.
func TestOutsideRepository(t *testing.T) {
	isolate(t)
	plain := t.TempDir()
	if !outsideRepository(plain) || !outsideRepository(filepath.Join(plain, "absent")) {
		t.Errorf("%s counts as a repository", plain)
	}
	repo := newRepo(t)
	bare := filepath.Join(t.TempDir(), "bare.git")
	mustRun(t, repo, "clone", "-q", "--bare", repo, bare)
	for _, dir := range []string{repo, filepath.Join(repo, "sub"), bare, filepath.Join(bare, "refs")} {
		if outsideRepository(dir) {
			t.Errorf("%s counts as outside a repository", dir)
		}
	}
	t.Setenv("GIT_DIR", filepath.Join(repo, ".git"))
	if outsideRepository(plain) {
		t.Error("GIT_DIR is ignored")
	}
}

func TestCommitsSince(t *testing.T) {
	dir := newRepo(t)
	base := commit(t, dir, "a.txt", "1\n")
	if got, err := CommitsSince(dir, base); err != nil || got != nil {
		t.Errorf("CommitsSince(HEAD) = %q, %v; want none", got, err)
	}
	first := commit(t, dir, "a.txt", "2\n")
	second := commit(t, dir, "b.txt", "3\n")
	got, err := CommitsSince(dir, base)
	if err != nil || !reflect.DeepEqual(got, []string{second, first}) {
		t.Errorf("CommitsSince = %q, %v; want [second first]", got, err)
	}
	if _, err := CommitsSince(dir, "no-such-ref"); err == nil || !strings.HasPrefix(err.Error(), "git rev-list: ") {
		t.Errorf("CommitsSince(unknown base) error = %v, want git rev-list's message", err)
	}
}

func TestRevertNewestFirst(t *testing.T) {
	dir := newRepo(t)
	commit(t, dir, "a.txt", "good\n")
	first := commit(t, dir, "a.txt", "bad 1\n")
	second := commit(t, dir, "a.txt", "bad 2\n")
	done, err := Revert(dir, []string{second, first})
	if err != nil || !reflect.DeepEqual(done, []string{second, first}) {
		t.Fatalf("Revert = %q, %v; want both", done, err)
	}
	if got := readFile(t, filepath.Join(dir, "a.txt")); got != "good\n" {
		t.Errorf("a.txt after the reverts = %q, want the content before both commits", got)
	}
	subjects := mustRun(t, dir, "log", "-2", "--format=%s")
	if want := "Revert \"write a.txt\"\nRevert \"write a.txt\""; subjects != want {
		t.Errorf("newest commits:\n%s\nwant two revert commits", subjects)
	}
}

// A revert that conflicts stops the run: the earlier reverts stay, the failed one is aborted
// so the worktree is clean and no revert is left half done.
func TestRevertStopsAndAbortsAtAConflict(t *testing.T) {
	dir := newRepo(t)
	commit(t, dir, "a.txt", "1\n")
	old := commit(t, dir, "a.txt", "2\n")
	commit(t, dir, "a.txt", "3\n")
	newer := commit(t, dir, "b.txt", "b\n")
	// Reverting old conflicts: a.txt changed again after it.
	done, err := Revert(dir, []string{newer, old})
	if err == nil || !strings.HasPrefix(err.Error(), "git revert: ") {
		t.Fatalf("Revert error = %v, want git revert's message", err)
	}
	if !reflect.DeepEqual(done, []string{newer}) {
		t.Errorf("reverted %q, want only the commit before the conflict", done)
	}
	if dirty, err := Dirty(dir); err != nil || dirty {
		t.Errorf("Dirty after the aborted revert = %v, %v; want a clean worktree", dirty, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "REVERT_HEAD")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("REVERT_HEAD left behind (%v): the revert was not aborted", err)
	}
}

func TestPush(t *testing.T) {
	dir := newRepo(t)
	commit(t, dir, "a.txt", "a\n")
	if err := Push(dir); err == nil || !strings.HasPrefix(err.Error(), "git push: ") {
		t.Errorf("Push without a remote: %v, want git push's message", err)
	}
	remote := filepath.Join(t.TempDir(), "remote.git")
	mustRun(t, dir, "init", "-q", "--bare", remote)
	mustRun(t, dir, "remote", "add", "origin", remote)
	mustRun(t, dir, "push", "-q", "-u", "origin", "main")
	c2 := commit(t, dir, "a.txt", "b\n")
	if err := Push(dir); err != nil {
		t.Fatal(err)
	}
	if got := mustRun(t, remote, "rev-parse", "main"); got != c2 {
		t.Errorf("remote main at %s, want the new commit %s", got, c2)
	}
}

func TestWithCheckout(t *testing.T) {
	dir := newRepo(t)
	old := commit(t, dir, "a.txt", "old\n")
	commit(t, dir, "a.txt", "new\n")
	// Uncommitted work in the caller's worktree must survive.
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var seen, where string
	err := WithCheckout(dir, old, func(path string) error {
		where = path
		seen = readFile(t, filepath.Join(path, "a.txt"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != "old\n" {
		t.Errorf("checkout shows a.txt = %q, want the old commit's", seen)
	}
	if _, err := os.Stat(where); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("checkout %s still there (%v)", where, err)
	}
	if list := mustRun(t, dir, "worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
		t.Errorf("worktrees after WithCheckout:\n%s\nwant only the main one", list)
	}
	if got := readFile(t, filepath.Join(dir, "a.txt")); got != "edited\n" {
		t.Errorf("caller's a.txt = %q, want the uncommitted edit kept", got)
	}

	boom := errors.New("boom")
	if err := WithCheckout(dir, old, func(string) error { return boom }); err != boom {
		t.Errorf("WithCheckout returned %v, want fn's error", err)
	}
	called := false
	err = WithCheckout(dir, "no-such-commit", func(string) error { called = true; return nil })
	if err == nil || called || !strings.HasPrefix(err.Error(), "git worktree: ") {
		t.Errorf("WithCheckout(unknown commit) = %v (fn called: %v), want git worktree's message and no call", err, called)
	}
}

// In a repository without any identity git refuses to commit; a revert must still go through,
// under swarm's fallback identity.
func TestRevertWithoutAnIdentity(t *testing.T) {
	dir := newRepo(t)
	commit(t, dir, "a.txt", "good\n")
	bad := commit(t, dir, "a.txt", "bad\n")
	for _, who := range []string{"AUTHOR", "COMMITTER"} {
		os.Unsetenv("GIT_" + who + "_NAME")
		os.Unsetenv("GIT_" + who + "_EMAIL")
	}
	// No guessing from the host name either.
	mustRun(t, dir, "config", "user.useConfigOnly", "true")
	if _, err := Run(dir, "commit", "--allow-empty", "-q", "-m", "x"); err == nil {
		t.Fatal("this repository still has an identity; the test proves nothing")
	}
	done, err := Revert(dir, []string{bad})
	if err != nil || len(done) != 1 {
		t.Fatalf("Revert = %q, %v", done, err)
	}
	if who := mustRun(t, dir, "log", "-1", "--format=%an <%ae>"); who != "swarm <swarm@localhost>" {
		t.Errorf("revert committed by %q, want the fallback identity", who)
	}
	if got := readFile(t, filepath.Join(dir, "a.txt")); got != "good\n" {
		t.Errorf("a.txt = %q after the revert", got)
	}
}

func TestIdentityIsWhoGitCommitsAs(t *testing.T) {
	dir := newRepo(t)
	t.Setenv("GIT_AUTHOR_NAME", "Ann")
	t.Setenv("GIT_AUTHOR_EMAIL", "ann@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Ann")
	t.Setenv("GIT_COMMITTER_EMAIL", "ann@example.com")
	if who, err := Identity(dir); err != nil || who != "Ann <ann@example.com>" {
		t.Fatalf("Identity = %q, %v", who, err)
	}
	for _, who := range []string{"AUTHOR", "COMMITTER"} {
		os.Unsetenv("GIT_" + who + "_NAME")
		os.Unsetenv("GIT_" + who + "_EMAIL")
	}
	mustRun(t, dir, "config", "user.useConfigOnly", "true")
	if who, err := Identity(dir); err == nil {
		t.Fatalf("Identity without one = %q", who)
	}
}
