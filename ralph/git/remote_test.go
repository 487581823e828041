package git

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedPair makes a bare repository standing for a project's shared remote, with one commit
// on main, and a clone of it; it returns the bare repository and the clone.
func sharedPair(t *testing.T) (bare, clone string) {
	t.Helper()
	seed := newRepo(t)
	commit(t, seed, "a.txt", "a\n")
	writeFiles(t, seed, map[string]string{"ralph/inbox.jsonl": "line one\n", "ralph/specs/x.md": "do x\n"})
	mustRun(t, seed, "add", "-A")
	mustRun(t, seed, "commit", "-q", "-m", "queue")
	bare = filepath.Join(filepath.Dir(seed), "shared.git")
	mustRun(t, seed, "clone", "-q", "--bare", seed, bare)
	clone = filepath.Join(filepath.Dir(seed), "clone")
	mustRun(t, seed, "clone", "-q", bare, clone)
	return bare, clone
}

func TestRemoteDefaultBranchAndURL(t *testing.T) {
	bare, clone := sharedPair(t)
	if b, err := RemoteDefaultBranch(clone, "origin"); err != nil || b != "main" {
		t.Errorf("default branch %q %v, want main", b, err)
	}
	// A clone that never learnt the remote's HEAD asks the remote.
	mustRun(t, clone, "symbolic-ref", "--delete", "refs/remotes/origin/HEAD")
	if b, err := RemoteDefaultBranch(clone, "origin"); err != nil || b != "main" {
		t.Errorf("default branch asked of the remote %q %v, want main", b, err)
	}
	if url, err := RemoteURL(clone, "origin"); err != nil || url != bare {
		t.Errorf("url %q %v, want %q", url, err, bare)
	}
	if _, err := RemoteURL(clone, "nope"); err == nil {
		t.Error("a remote that is not there has a URL")
	}
}

func TestFetchSharedCopiesAndPrunesRefs(t *testing.T) {
	bare, clone := sharedPair(t)
	c1, err := RecordCommit(clone, "record one\n\nState: active", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"q-aaaa", "q-bbbb"} {
		if err := PushLease(clone, "origin", c1, "refs/swarm/claims/"+id, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := FetchShared(clone, "origin", "main", "refs/swarm/claims/"); err != nil {
		t.Fatal(err)
	}
	refs, err := FetchedRefs(clone, "origin")
	if err != nil || len(refs) != 2 || refs[0].Name != "q-aaaa" || refs[0].Commit != c1 || refs[0].Message != "record one\n\nState: active" {
		t.Fatalf("fetched %+v %v", refs, err)
	}
	mustRun(t, bare, "update-ref", "-d", "refs/swarm/claims/q-aaaa")
	if err := FetchShared(clone, "origin", "main", "refs/swarm/claims/"); err != nil {
		t.Fatal(err)
	}
	if refs, _ := FetchedRefs(clone, "origin"); len(refs) != 1 || refs[0].Name != "q-bbbb" {
		t.Errorf("after the remote's ref went: %+v", refs)
	}
	if err := FetchShared(clone, "origin", "nope", "refs/swarm/claims/"); err == nil {
		t.Error("fetched a branch the remote does not have")
	}
}

func TestShowFileReadsTheRemoteBranchWithoutACheckout(t *testing.T) {
	_, clone := sharedPair(t)
	// A changed inbox in the checkout does not get in the way.
	writeFiles(t, clone, map[string]string{"ralph/inbox.jsonl": "local\n"})
	data, found, err := ShowFile(clone, RemoteBranchRef("origin", "main"), "ralph/inbox.jsonl")
	if err != nil || !found || string(data) != "line one\n" {
		t.Errorf("inbox %q %v %v", data, found, err)
	}
	if _, found, err := ShowFile(clone, "refs/remotes/origin/main", "ralph/specs/none.md"); found || err != nil {
		t.Errorf("a missing file: %v %v", found, err)
	}
	if _, _, err := ShowFile(clone, "refs/remotes/origin/nope", "a.txt"); err == nil {
		t.Error("a missing branch is no error")
	}
}

func TestPushLeaseIsACompareAndSwap(t *testing.T) {
	bare, clone := sharedPair(t)
	ref := "refs/swarm/claims/q-aaaa"
	first, _ := RecordCommit(clone, "first", "")
	second, _ := RecordCommit(clone, "second", first)
	if err := PushLease(clone, "origin", first, ref, ""); err != nil {
		t.Fatal(err)
	}
	if err := PushLease(clone, "origin", second, ref, ""); !errors.Is(err, ErrLeaseRejected) {
		t.Errorf("creating a ref that exists: %v, want a rejection", err)
	}
	if err := PushLease(clone, "origin", second, ref, second); !errors.Is(err, ErrLeaseRejected) {
		t.Errorf("a lease on the wrong commit: %v, want a rejection", err)
	}
	if err := PushLease(clone, "origin", second, ref, first); err != nil {
		t.Errorf("a lease on the ref's commit: %v", err)
	}
	if err := PushLease(clone, "origin", "", ref, first); !errors.Is(err, ErrLeaseRejected) {
		t.Errorf("deleting with a stale lease: %v", err)
	}
	if err := PushLease(clone, "origin", "", ref, second); err != nil {
		t.Errorf("deleting with the lease: %v", err)
	}
	if _, err := Run(bare, "rev-parse", "--verify", "--quiet", ref); err == nil {
		t.Error("the ref is still there")
	}
	err := PushLease(clone, filepath.Join(t.TempDir(), "gone"), first, ref, "")
	if err == nil || errors.Is(err, ErrLeaseRejected) || !strings.HasPrefix(err.Error(), "git push: ") {
		t.Errorf("a remote that is away: %v, want git's own failure", err)
	}
}

func TestRecordCommitHasAnEmptyTree(t *testing.T) {
	_, clone := sharedPair(t)
	c, err := RecordCommit(clone, "swarm claim q-aaaa: active\n\nHost: h", "")
	if err != nil {
		t.Fatal(err)
	}
	if files := mustRun(t, clone, "ls-tree", "-r", c); files != "" {
		t.Errorf("files %q", files)
	}
	if msg := mustRun(t, clone, "log", "-1", "--format=%B", c); msg != "swarm claim q-aaaa: active\n\nHost: h" {
		t.Errorf("message %q", msg)
	}
	next, _ := RecordCommit(clone, "next", c)
	if parent := mustRun(t, clone, "rev-parse", next+"^"); parent != c {
		t.Errorf("parent %s, want %s", parent, c)
	}
}

func TestReplayOntoAndForcePush(t *testing.T) {
	bare, clone := sharedPair(t)
	head := mustRun(t, clone, "rev-parse", "HEAD")
	work := writeCommit(t, clone, "b.txt", "b\n", "ralph: complete b")
	// The remote's main moves on with a change of its own.
	mustRun(t, clone, "reset", "-q", "--hard", head)
	other := writeCommit(t, clone, "c.txt", "c\n", "c")
	mustRun(t, clone, "push", "-q", "origin", "HEAD:main")
	writeFiles(t, clone, map[string]string{"dirty.txt": "uncommitted"})
	replayed, err := ReplayOnto(clone, work, other)
	if err != nil {
		t.Fatal(err)
	}
	if parent := mustRun(t, clone, "rev-parse", replayed+"^"); parent != other {
		t.Errorf("replayed onto %s, want %s", parent, other)
	}
	if msg := mustRun(t, clone, "log", "-1", "--format=%s", replayed); msg != "ralph: complete b" {
		t.Errorf("message %q", msg)
	}
	if readFile(t, filepath.Join(clone, "dirty.txt")) != "uncommitted" || mustRun(t, clone, "rev-parse", "HEAD") != other {
		t.Error("the checkout was touched")
	}
	if err := ForcePush(clone, "origin", work, "refs/heads/swarm/spec/q-aaaa"); err != nil {
		t.Fatal(err)
	}
	if got := mustRun(t, bare, "rev-parse", "swarm/spec/q-aaaa"); got != work {
		t.Errorf("spec branch at %s, want %s", got, work)
	}
	// A change to a file the base changed too does not apply.
	clash := writeCommit(t, clone, "c.txt", "mine\n", "clash")
	mustRun(t, clone, "reset", "-q", "--hard", head)
	theirs := writeCommit(t, clone, "c.txt", "theirs\n", "theirs")
	if _, err := ReplayOnto(clone, clash, theirs); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "c.txt") {
		t.Errorf("a conflicting replay: %v", err)
	}
	if list := mustRun(t, clone, "worktree", "list"); strings.Count(list, "\n") != 0 {
		t.Errorf("worktrees left:\n%s", list)
	}
	if _, err := os.Stat(filepath.Join(clone, ".git", "CHERRY_PICK_HEAD")); err == nil {
		t.Error("a cherry-pick is left in progress")
	}
}
