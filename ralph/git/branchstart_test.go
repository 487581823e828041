package git

import "testing"

func TestBranchStart(t *testing.T) {
	dir := newRepo(t)
	base := commit(t, dir, "a.txt", "one")
	mustRun(t, dir, "branch", "side")
	if got, ok := BranchStart(dir, "side"); !ok || got != base {
		t.Fatalf("a new branch starts at %q (%v), want %s", got, ok, base)
	}
	mustRun(t, dir, "checkout", "-q", "side")
	commit(t, dir, "b.txt", "b")
	if got, ok := BranchStart(dir, "side"); !ok || got != base {
		t.Errorf("a branch with a commit starts at %q (%v), want %s", got, ok, base)
	}
	if _, ok := BranchStart(dir, "nosuch"); ok {
		t.Error("a branch that does not exist has a start")
	}
}
