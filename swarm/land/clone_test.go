package land

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/worker"
	"github.com/swarm-dev/swarm/swarm/worker/workertest"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

// cloneWorker records a worker that exited 0 (what --all offers) whose worktree is a clone of
// the fixture's repository on branch name, and returns its machine and clone.
func (f *fixture) cloneWorker(name string) (*worker.Machine, string) {
	f.t.Helper()
	fake := tmuxtest.New()
	m := worker.NewMachine(f.dir, fake, workertest.New(fake), nil)
	cw, err := m.CreateClone(f.repo, name, "", "")
	if err != nil {
		f.t.Fatal(err)
	}
	zero := 0
	w := &state.Worker{ID: name, Name: name, Status: state.StatusStopped, Cmd: []string{"true"}, Cwd: cw.Info.Path,
		Tags: []string{}, Worktree: &cw.Info, ExitCode: &zero, Metadata: map[string]any{}}
	if err := f.dir.UpdateWorkers(nil, func(ws *state.Workers) error { ws.Put(w); return nil }); err != nil {
		f.t.Fatal(err)
	}
	return m, cw.Info.Path
}

// commitIn writes file in the clone at dir and commits it there.
func (f *fixture) commitIn(dir, file string) string {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(file+"\n"), 0o644); err != nil {
		f.t.Fatal(err)
	}
	for _, args := range [][]string{{"add", file}, {"commit", "-q", "-m", "add " + file}} {
		if _, err := git.Run(dir, args...); err != nil {
			f.t.Fatal(err)
		}
	}
	return git.Head(dir)
}

// candidate is the one candidate q selects.
func (f *fixture) candidate(m *worker.Machine, q Query) Candidate {
	f.t.Helper()
	sel, err := Candidates(m, q)
	if err != nil || len(sel.Candidates) != 1 {
		f.t.Fatalf("selection %+v, %v; want one candidate", sel, err)
	}
	return sel.Candidates[0]
}

// A clone's branch is brought back into the repository when it is offered, named or with
// --all (from the repository or from the clone itself), and lands like any other.
func TestACloneWorkersBranchLands(t *testing.T) {
	f := newFixture(t)
	m, clone := f.cloneWorker("w1")
	tip := f.commitIn(clone, "b.txt")
	for _, q := range []Query{{Names: []string{"w1"}}, {All: true, Repo: f.repo}, {All: true, Repo: realPath(clone)}} {
		c := f.candidate(m, q)
		if c.Problem != "" || c.Tip != tip || c.Clone != clone || c.Repo != f.repo || c.Target != "main" {
			t.Fatalf("query %+v: candidate %+v, want w1 at the clone's %s", q, c, tip)
		}
	}
	if got := f.git("rev-parse", "w1"); got != tip {
		t.Fatalf("the repository's w1 at %s, want the clone's %s", got, tip)
	}
	c := f.candidate(m, Query{Names: []string{"w1"}})
	r, err := Land(f.dir, c, Options{TestCommand: "test -f b.txt"})
	if err != nil || r.State != Landed || !r.Clone {
		t.Fatalf("record %+v, %v", r, err)
	}
	if _, err := os.Stat(filepath.Join(f.repo, "b.txt")); err != nil {
		t.Error("the checkout of main did not follow")
	}
	want := "branch w1 landed on main at " + ralph.ShortCommit(r.Commit)
	w := &state.Worker{Name: "w1", Worktree: &state.WorktreeInfo{Path: clone, Branch: "w1", BaseRepo: f.repo, Clone: true}}
	if got := BranchLanded(f.dir, w); got != want {
		t.Errorf("BranchLanded = %q, want %q", got, want)
	}
	f.commitIn(clone, "c.txt")
	if got := BranchLanded(f.dir, w); got != "" {
		t.Errorf("a clone's branch that moved on in the clone since it landed: %q", got)
	}
}

// A commit in the clone while its branch is tested is the branch moving, as it is for a
// worktree; a branch checked out in the repository cannot be brought back, and says so.
func TestACloneWorkersBranchMovedOrCheckedOut(t *testing.T) {
	f := newFixture(t)
	m, clone := f.cloneWorker("w1")
	tip := f.commitIn(clone, "b.txt")
	before := f.git("rev-parse", "main")
	c := f.candidate(m, Query{Names: []string{"w1"}})
	r, err := Land(f.dir, c, Options{TestCommand: "git -C " + clone + " commit -q --allow-empty -m more"})
	if err != nil {
		t.Fatal(err)
	}
	f.wantNotLanded(r, before, "w1's branch moved while it was tested ("+tip[:7]+" → ")
	f.git("checkout", "-q", "w1")
	c = f.candidate(m, Query{Names: []string{"w1"}})
	if step, why := Next(c, true, false); step != StepCannot || !strings.Contains(why, "cannot bring branch w1 back from its clone") ||
		!strings.Contains(why, "w1 is checked out at "+f.repo) {
		t.Errorf("a clone's branch checked out in the repository: %v %q", step, why)
	}
}
