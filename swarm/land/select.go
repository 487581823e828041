package land

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// Query says which workers a run of the queue considers: those named, in that order, from any
// repository; or with All those of one repository, Repo (as RepoOf gives it; a worker's clone
// stands for the repository it was made from), oldest first.
// Into names the target branch; empty: the branch checked out in each worker's repository.
type Query struct {
	Names []string
	All   bool
	Repo  string
	Into  string
}

// Selection is what a run considers: the candidates, in order, and with All the repository,
// the workers of it passed over and how many workers with a branch are in other ones.
type Selection struct {
	Repo       string
	Candidates []Candidate
	PassedOver []PassedOver
	Elsewhere  int
}

// PassedOver is a worker of the repository with a branch of its own that All does not take
// (see Offered); Loop is its loop's state, nil for a worker that is no loop's.
type PassedOver struct {
	Worker *state.Worker
	Loop   *ralph.State
}

// Repos are the repositories of the candidates, each once, in their order.
func (s Selection) Repos() []string {
	var repos []string
	seen := map[string]bool{}
	for _, c := range s.Candidates {
		if !seen[c.Repo] {
			seen[c.Repo] = true
			repos = append(repos, c.Repo)
		}
	}
	return repos
}

// RepoOf is the repository dir is in, as a worker records the one its worktree was made
// from: the top directory of the main worktree (from a linked worktree or a subdirectory
// too), with symlinks resolved.
func RepoOf(dir string) (string, error) {
	top, err := git.MainRoot(dir)
	if err != nil {
		return "", err
	}
	return realPath(top), nil
}

// realPath is path with symlinks resolved, or as it is when it cannot be (it is gone).
func realPath(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p
	}
	return filepath.Clean(path)
}

// Candidates are the workers the query considers. A named worker must have a branch of its
// own; one whose branch cannot be taken up is a candidate with a Problem, so that it never
// stops the others.
func Candidates(m *worker.Machine, q Query) (Selection, error) {
	sel := Selection{Repo: q.Repo}
	ws, _, err := m.Targets(q.Names, q.All, func(w *state.Worker) bool {
		return w.Worktree != nil && w.Worktree.Branch != ""
	})
	if err != nil {
		return sel, err
	}
	if q.All {
		q.Repo = cloneBase(ws, q.Repo)
		sel.Repo = q.Repo
	}
	targets := map[string]target{}
	for _, w := range ws {
		if w.Worktree == nil || w.Worktree.Branch == "" {
			return sel, fmt.Errorf("%s has no branch of its own (spawn it with --worktree)", w.Name)
		}
		loop := loopOf(m, w)
		switch {
		case !q.All:
		case realPath(w.Worktree.BaseRepo) != q.Repo:
			sel.Elsewhere++
			continue
		case !Offered(w, loop):
			sel.PassedOver = append(sel.PassedOver, PassedOver{Worker: w, Loop: loop})
			continue
		}
		sel.Candidates = append(sel.Candidates, candidate(m, w, loop, q.Into, targets))
	}
	return sel, nil
}

// cloneBase is the repository a worker's clone at repo was made from, as a linked worktree
// stands for its repository; repo itself when it is no worker's clone.
func cloneBase(ws []*state.Worker, repo string) string {
	for _, w := range ws {
		if wt := w.Worktree; wt != nil && wt.Clone && realPath(wt.Path) == repo {
			return realPath(wt.BaseRepo)
		}
	}
	return repo
}

// loopOf is the state of w's loop, nil for a worker that is no loop's (or whose loop state
// cannot be read), as the views tell them.
func loopOf(m *worker.Machine, w *state.Worker) *ralph.State {
	if w.Metadata["ralph"] != true {
		return nil
	}
	return m.LoopState(w.Name)
}

// target is a repository's default target: the branch checked out there, or why there is none.
type target struct{ branch, problem string }

// candidate is w's branch as the queue sees it now; what keeps it from being taken up is
// its Problem.
func candidate(m *worker.Machine, w *state.Worker, loop *ralph.State, into string, targets map[string]target) Candidate {
	c := Candidate{Worker: w.Name, Branch: w.Worktree.Branch, Repo: w.Worktree.BaseRepo, Target: into}
	if loop != nil && loop.Supervision != nil {
		c.TestCommand = loop.Supervision.TestCommand
	}
	rec, err := LoadRecord(m.Dir(), w.Name)
	if err != nil {
		c.Problem = err.Error()
		return c
	}
	c.Record = rec
	if _, err := os.Stat(c.Repo); err != nil {
		c.Problem, c.Gone = fmt.Sprintf("its repository %s is gone", c.Repo), true
		return c
	}
	if w.Worktree.Clone {
		c.Clone = w.Worktree.Path
		if err := worker.FetchBack(w.Worktree); err != nil {
			c.Problem = err.Error()
			return c
		}
	}
	noTarget := ""
	if into == "" {
		t := defaultTarget(c.Repo, targets)
		c.Target, noTarget = t.branch, t.problem
	}
	if !git.BranchExists(c.Repo, c.Branch) {
		c.Problem, c.Gone = fmt.Sprintf("branch %s no longer exists", c.Branch), true
		return c
	}
	if noTarget != "" {
		c.Problem = noTarget
		return c
	}
	tip, err := git.ResolveCommit(c.Repo, "refs/heads/"+c.Branch)
	if err != nil {
		c.Problem = fmt.Sprintf("branch %s: %v", c.Branch, err)
		return c
	}
	onto, err := git.ResolveCommit(c.Repo, "refs/heads/"+c.Target)
	if err != nil {
		c.Problem = fmt.Sprintf("no branch %s in %s to land into", c.Target, c.Repo)
		return c
	}
	c.Tip, c.Landed = tip, git.IsAncestor(c.Repo, tip, onto)
	return c
}

// defaultTarget is the branch checked out in repo, asked once per run.
func defaultTarget(repo string, known map[string]target) target {
	if t, ok := known[repo]; ok {
		return t
	}
	var t target
	if b, err := git.CurrentBranch(repo); err == nil {
		t.branch = b
	} else {
		t.problem = fmt.Sprintf("no branch checked out in %s to land into (use --into BRANCH)", repo)
	}
	known[repo] = t
	return t
}
