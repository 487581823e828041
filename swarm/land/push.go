package land

import (
	"errors"
	"fmt"
	"strings"

	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/state"
)

// maxPushAttempts bounds how often a landing is merged and tested again on top of a remote
// that moved between the fetch and the push.
const maxPushAttempts = 5

// push pushes the landed target to its remote (its upstream, else origin). A push refused
// because the remote moved fetches the remote's head, merges the branch again on top of it in
// the scratch worktree, tests that, moves the local target to it (compare-and-swap) and pushes
// again. What does not merge or pass there is sent back like any landing; the local target
// keeps the landing it had, unpushed.
func push(d *state.Dir, c Candidate, r *Record, scratch string) error {
	remote, ref := git.Upstream(c.Repo, c.Target)
	name := remote + "/" + strings.TrimPrefix(ref, "refs/heads/")
	for attempt := 0; attempt < maxPushAttempts; attempt++ {
		err := git.PushCommit(c.Repo, remote, r.Commit, ref)
		if err == nil {
			r.Pushed = name
			return save(d, r)
		}
		if !errors.Is(err, git.ErrPushRejected) {
			return fmt.Errorf("pushing %s to %s (landed locally at %s, not pushed): %w", c.Target, name, r.Commit, err)
		}
		if err := relandOnRemote(d, c, r, scratch, remote, ref, name); err != nil || r.State != Landed {
			return err
		}
	}
	return fmt.Errorf("pushing %s to %s: the remote kept moving, %d attempts (landed locally at %s, not pushed)", c.Target, name, maxPushAttempts, r.Commit)
}

// relandOnRemote merges the branch onto the remote's new head and tests it there, and moves
// the local target from the landing it had to that commit. When the local target held commits
// of its own that the remote lacks, the whole landed target is merged instead of the branch
// alone, so that none of them is dropped.
func relandOnRemote(d *state.Dir, c Candidate, r *Record, scratch, remote, ref, name string) error {
	theirs, err := git.FetchRef(c.Repo, remote, ref)
	if err != nil {
		return fmt.Errorf("fetching %s: %w", name, err)
	}
	ours := r.Commit
	merge := c.Tip
	if before, err := git.ResolveCommit(c.Repo, ours+"^1"); err != nil || !git.IsAncestor(c.Repo, before, theirs) {
		merge = ours
	}
	if err := git.ResetScratch(c.Repo, scratch, theirs); err != nil {
		return fmt.Errorf("scratch worktree %s: %w", scratch, err)
	}
	head, conflicts, err := git.MergeNoFF(scratch, merge, fmt.Sprintf("Land %s: %s", c.Worker, c.Branch))
	if errors.Is(err, git.ErrConflict) {
		r.State, r.Conflicts = NeedsRebase, conflicts
		r.Reason = fmt.Sprintf("conflicts with %s in %s; %s keeps it locally, not pushed", name, strings.Join(conflicts, ", "), c.Target)
		return save(d, r)
	}
	if err != nil {
		return fmt.Errorf("merging %s onto %s: %w", c.Branch, name, err)
	}
	r.State, r.TestedCommit = Testing, head
	if err := save(d, r); err != nil {
		return err
	}
	if green, err := testMerge(d, c, r, scratch, name); err != nil || !green {
		return err
	}
	if err := moveTarget(c, ours, head); errors.Is(err, errTargetMoved) {
		// Not the landing's own retry: the local target holds the branch already.
		return fmt.Errorf("%s moved under the landing on top of %s; not pushed: run swarm land --push again", c.Target, name)
	} else if err != nil {
		return fmt.Errorf("moving %s onto %s: %w", c.Target, name, err)
	}
	r.State, r.Commit = Landed, head
	return save(d, r)
}

// PushLanded pushes the target of a branch an earlier run landed but could not push (the
// remote refused it, or could not be reached): the target as it is now, which holds that
// landing and, like every commit the target was moved to, was tested. A remote that already
// holds the landing only has the record say so. It takes the repository's landing lock, as
// Land does.
func PushLanded(d *state.Dir, c Candidate) (*Record, error) {
	lock, err := lockRepo(d, c.Repo)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	r := *c.Record
	remote, ref := git.Upstream(c.Repo, c.Target)
	name := remote + "/" + strings.TrimPrefix(ref, "refs/heads/")
	theirs, err := git.FetchRef(c.Repo, remote, ref)
	if err != nil {
		return nil, fmt.Errorf("fetching %s (%s landed locally at %s, not pushed): %w", name, c.Branch, r.Commit, err)
	}
	if git.IsAncestor(c.Repo, r.Commit, theirs) {
		r.Pushed = name
		return &r, save(d, &r)
	}
	head, err := git.ResolveCommit(c.Repo, "refs/heads/"+c.Target)
	if err != nil || !git.IsAncestor(c.Repo, r.Commit, head) {
		return nil, fmt.Errorf("%s no longer holds the landing of %s at %s; land it again", c.Target, c.Branch, r.Commit)
	}
	r.Commit = head
	scratch := scratchPath(d, c.Repo)
	endLeftoverTests(scratch)
	return &r, push(d, c, &r, scratch)
}
