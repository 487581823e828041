package swarm

import (
	"fmt"
	"strings"

	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/swarm/land"
)

// Which workers `swarm land` considers, and how it says what it left out: --all is about one
// repository (the current directory's, or --repo), named workers may be in any.

// landSelection is what this run considers.
func landSelection(e *env, o landOptions) (land.Selection, error) {
	q := land.Query{Names: o.Names, All: o.All, Into: o.Into}
	if o.All {
		repo, err := landRepo(o.Repo)
		if err != nil {
			return land.Selection{}, err
		}
		q.Repo = repo
	}
	sel, err := land.Candidates(e.Machine, q)
	if err != nil {
		return sel, err
	}
	if repos := sel.Repos(); o.TestCommand != "" && len(repos) > 1 {
		return sel, fail("--test-command would run in %d repositories (%s): land each repository's workers on their own, or leave it out so that each is tested with its own",
			len(repos), strings.Join(shownRepos(repos), ", "))
	}
	return sel, nil
}

// landRepo is the repository --all lands the workers of: the one dir is in (--repo), else
// the current directory's.
func landRepo(dir string) (string, error) {
	if dir != "" {
		repo, err := land.RepoOf(dir)
		if err != nil {
			return "", fail("--repo %s is not in a git repository", dir)
		}
		return repo, nil
	}
	repo, err := land.RepoOf(".")
	if err != nil {
		return "", fail("land --all lands the finished workers of the repository you are in, and this directory is in none: cd into the repository, or pass --repo PATH")
	}
	return repo, nil
}

// passedOver are the results of the workers --all passed over, each said in a line when the
// output is text: "passed over: w3 (stopped: max_iterations)".
func passedOver(e *env, o landOptions, sel land.Selection) []landResult {
	results := []landResult{}
	for _, p := range sel.PassedOver {
		why := passedOverWhy(stateOf(p.Worker.Status, p.Worker.ExitCode, p.Loop))
		if o.Format == "text" {
			fmt.Fprintf(e.stdout, "passed over: %s (%s)\n", p.Worker.Name, why)
		}
		// Where its branch stood when last offered, if it ever was (named, or before).
		rec, err := land.LoadRecord(e.Dir(), p.Worker.Name)
		if err != nil || rec == nil {
			rec = &land.Record{Worker: p.Worker.Name, Branch: p.Worker.Worktree.Branch}
		}
		results = append(results, landResult{Record: rec, Skipped: "passed over (" + why + "): --all lands finished workers only; name it to land it",
			Repo: p.Worker.Worktree.BaseRepo})
	}
	return results
}

// passedOverWhy is why a worker was passed over, in the words of ls: "still running",
// "stopped: max_iterations", "stopped: exit 1", "failed: consecutive_failures", "killed".
func passedOverWhy(s stateWord) string {
	switch {
	case s.word == wordRunning:
		return "still running"
	case s.detail == "":
		return s.word
	}
	return s.word + ": " + s.detail
}

// repoHeadings returns what says, before the results of a repository's workers, which
// repository they are in: only when the run involves more than one.
func repoHeadings(e *env, o landOptions, sel land.Selection) func(repo string) {
	last := ""
	return func(repo string) {
		if o.Format != "text" || len(sel.Repos()) < 2 || repo == last {
			return
		}
		last = repo
		fmt.Fprintf(e.stdout, "in %s:\n", homeRelative(repo))
	}
}

// nothingToLand says why a run found nothing to land.
func nothingToLand(sel land.Selection) string {
	msg := "nothing to land: no finished worker with a branch of its own in " + homeRelative(sel.Repo)
	if n := len(sel.PassedOver); n > 0 {
		msg += fmt.Sprintf("; %s passed over (name one to land it anyway)", words.Plural(n, "worker"))
	}
	if sel.Elsewhere > 0 {
		msg += fmt.Sprintf("; %s with a branch in other repositories (land them from there, or with --repo PATH)",
			words.Plural(sel.Elsewhere, "worker"))
	}
	return msg
}

// shownRepos are repositories as a person reads them.
func shownRepos(repos []string) []string {
	out := make([]string, len(repos))
	for i, r := range repos {
		out[i] = homeRelative(r)
	}
	return out
}
