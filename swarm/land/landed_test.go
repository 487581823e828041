package land

import (
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

func TestBranchLanded(t *testing.T) {
	f := newFixture(t)
	worker := func(name, branch string) *state.Worker {
		return &state.Worker{Name: name, Worktree: &state.WorktreeInfo{Branch: branch, BaseRepo: f.repo}}
	}
	f.git("branch", "idle")
	if got := BranchLanded(f.dir, worker("w-idle", "idle")); got != "" {
		t.Errorf("a branch without a commit of its own: %q", got)
	}
	f.commit("open", "b.txt", "b\n")
	if got := BranchLanded(f.dir, worker("w-open", "open")); got != "" {
		t.Errorf("a branch not on main: %q", got)
	}
	f.commit("byhand", "c.txt", "c\n")
	f.git("merge", "-q", "--no-ff", "-m", "merged by hand", "byhand")
	if got, want := BranchLanded(f.dir, worker("w-byhand", "byhand")), "branch byhand is on main"; got != want {
		t.Errorf("a branch merged by hand: %q, want %q", got, want)
	}
	f.commit("one", "d.txt", "d\n")
	r := f.land("one", "")
	want := "branch one landed on main at " + ralph.ShortCommit(r.Commit)
	if got := BranchLanded(f.dir, worker("w-one", "one")); got != want {
		t.Errorf("a branch swarm landed: %q, want %q", got, want)
	}
	if got := BranchLanded(f.dir, worker("w-two", "one")); got != "branch one is on main" {
		t.Errorf("the same branch for a worker without the record: %q", got)
	}
	f.git("branch", "-D", "one")
	if got := BranchLanded(f.dir, worker("w-one", "one")); got != want {
		t.Errorf("a landed branch deleted since: %q, want %q", got, want)
	}
	f.commit("one", "e.txt", "e\n")
	if got := BranchLanded(f.dir, worker("w-one", "one")); got != "" {
		t.Errorf("a branch that moved on since it landed: %q", got)
	}
	if got := BranchLanded(f.dir, &state.Worker{Name: "plain"}); got != "" {
		t.Errorf("a worker without a branch: %q", got)
	}
}
