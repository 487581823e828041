package land

import (
	"errors"
	"fmt"
	"strings"

	"github.com/swarm-dev/swarm/ralph"
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
func (l *landing) push() error {
	c, r := l.c, l.r
	remote, ref := git.Upstream(c.Repo, c.Target)
	name := remote + "/" + strings.TrimPrefix(ref, "refs/heads/")
	for attempt := 0; attempt < maxPushAttempts; attempt++ {
		l.tell(Event{Step: StepPushing, Target: name, Commit: r.Commit})
		ctx, cancel := l.bound()
		err := git.PushCommit(ctx, c.Repo, remote, r.Commit, ref)
		cancel()
		if err == nil {
			r.Pushed = name
			return l.save()
		}
		if !errors.Is(err, git.ErrPushRejected) {
			return fmt.Errorf("pushing %s to %s (landed locally at %s, not pushed): %w", c.Target, name, r.Commit, err)
		}
		if err := l.relandOnRemote(remote, ref, name); err != nil || r.State != Landed {
			return err
		}
	}
	return fmt.Errorf("pushing %s to %s: the remote kept moving, %d attempts (landed locally at %s, not pushed)", c.Target, name, maxPushAttempts, r.Commit)
}

// relandOnRemote merges the branch onto the remote's new head and tests it there, and moves
// the local target from the landing it had to that commit. When the local target held commits
// of its own that the remote lacks, the whole landed target is merged instead of the branch
// alone, so that none of them is dropped.
func (l *landing) relandOnRemote(remote, ref, name string) error {
	c, r := l.c, l.r
	ctx, cancel := l.bound()
	theirs, err := git.FetchRef(ctx, c.Repo, remote, ref)
	cancel()
	if err != nil {
		return fmt.Errorf("fetching %s: %w", name, err)
	}
	ours := r.Commit
	merge := c.Tip
	if before, err := git.ResolveCommit(c.Repo, ours+"^1"); err != nil || !git.IsAncestor(c.Repo, before, theirs) {
		merge = ours
	}
	head, err := l.merge(theirs, merge, name)
	switch {
	case err != nil:
		return l.keptLocally(ours, name, err.Error())
	case head == "" && r.State == NeedsRebase:
		r.Reason += fmt.Sprintf("; %s keeps it locally, not pushed", c.Target)
		return l.save()
	case head == "":
		return l.keptLocally(ours, name, r.Reason)
	}
	if green, err := l.test(name); err != nil {
		return l.keptLocally(ours, name, err.Error())
	} else if !green && r.State == Queued {
		return l.keptLocally(ours, name, r.Reason)
	} else if !green {
		return nil
	}
	if err := l.move(ours, head); errors.Is(err, errTargetMoved) {
		// Not the landing's own retry: the local target holds the branch already.
		return l.keptLocally(ours, name, fmt.Sprintf("%s moved under the landing; run swarm land --push again", c.Target))
	} else if err != nil || r.State != Landed {
		why := r.Reason
		if err != nil {
			why = err.Error()
		}
		return l.keptLocally(ours, name, fmt.Sprintf("moving %s: %s", c.Target, why))
	}
	return nil
}

// keptLocally records the landing the local target keeps (at ours) when landing it again on
// top of the remote stopped for a reason that is not the branch's fault, and says so.
func (l *landing) keptLocally(ours, name, why string) error {
	l.r.State, l.r.Commit, l.r.Reason, l.r.MoveFrom = Landed, ours, "", ""
	return fmt.Errorf("landing it again on top of %s: %s; %s keeps it locally at %s, not pushed",
		name, why, l.c.Target, ralph.ShortCommit(ours))
}

// PushLanded pushes the target of a branch an earlier run landed but could not push (the
// remote refused it, or could not be reached): the target as it is now, which holds that
// landing and, like every commit the target was moved to, was tested. A remote that already
// holds the landing only has the record say so. It takes the repository's landing lock, as
// Land does.
func PushLanded(d *state.Dir, c Candidate, o Options) (*Record, error) {
	lock, err := lockRepo(d, c.Repo)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	r := *c.Record
	l := newLanding(d, c, &r, o)
	remote, ref := git.Upstream(c.Repo, c.Target)
	name := remote + "/" + strings.TrimPrefix(ref, "refs/heads/")
	ctx, cancel := l.bound()
	theirs, err := git.FetchRef(ctx, c.Repo, remote, ref)
	cancel()
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
	endLeftoverTests(l.scratch)
	return &r, l.push()
}
