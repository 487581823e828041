package land

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/state"
)

// maxAttempts bounds how often one branch is merged and tested again because another land
// moved the target between its test and its move.
const maxAttempts = 10

// errTargetMoved: the target is no longer where this attempt's merge started from.
var errTargetMoved = errors.New("the target moved")

// repoKey names a repository's lock and scratch worktree: its directory's name, for people,
// and a digest of its path, so two repositories of the same name never share them.
func repoKey(repo string) string {
	sum := sha256.Sum256([]byte(repo))
	return filepath.Base(repo) + "-" + hex.EncodeToString(sum[:])[:10]
}

// Options say how a branch lands: the test command the merge must pass (none: the merge
// alone decides) and whether the target, once moved, is pushed to its remote.
type Options struct {
	TestCommand string
	Push        bool
}

// Land merges c's branch onto its target in the scratch worktree, tests the merge with
// o.TestCommand and moves the target to it if green, then, with o.Push, pushes it. It holds
// the repository's landing lock throughout, so two runs take turns, and it returns the record
// it left; err is for what went wrong around the landing (git failing, files), not for a
// branch that was sent back.
func Land(d *state.Dir, c Candidate, o Options) (*Record, error) {
	lock, err := lockRepo(d, c.Repo)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	r := &Record{Worker: c.Worker, Branch: c.Branch, Target: c.Target, BranchCommit: c.Tip,
		TestCommand: o.TestCommand, State: Queued}
	if c.Record != nil {
		r.Queued = c.Record.Queued
	}
	if err := save(d, r); err != nil {
		return nil, err
	}
	scratch := scratchPath(d, c.Repo)
	endLeftoverTests(scratch)
	for attempt := 0; attempt < maxAttempts; attempt++ {
		err := attemptLand(d, c, r, scratch)
		if err == nil && o.Push && r.State == Landed && r.Reason == "" {
			err = push(d, c, r, scratch)
		}
		if !errors.Is(err, errTargetMoved) {
			return r, err
		}
	}
	r.State, r.Reason = Queued, fmt.Sprintf("%s kept moving under the merge; not landed", c.Target)
	return r, save(d, r)
}

// lockRepo takes repo's landing lock: two runs on one repository take turns.
func lockRepo(d *state.Dir, repo string) (*state.Lock, error) {
	if err := os.MkdirAll(Root(d), 0o700); err != nil {
		return nil, err
	}
	return state.AcquireLock(filepath.Join(Root(d), repoKey(repo)+".lock"))
}

// scratchPath is swarm's own worktree of repo where branches are merged and tested.
func scratchPath(d *state.Dir, repo string) string {
	return filepath.Join(Root(d), repoKey(repo)+".scratch")
}

// attemptLand is one merge, test and move on the target as it is now.
func attemptLand(d *state.Dir, c Candidate, r *Record, scratch string) error {
	old, err := git.ResolveCommit(c.Repo, "refs/heads/"+c.Target)
	if err != nil {
		return fmt.Errorf("target branch %s: %w", c.Target, err)
	}
	if git.IsAncestor(c.Repo, c.Tip, old) {
		// Another run landed it while this one waited for the lock.
		r.State, r.Commit, r.Reason = Landed, old, fmt.Sprintf("already on %s", c.Target)
		return save(d, r)
	}
	if err := git.ResetScratch(c.Repo, scratch, old); err != nil {
		return fmt.Errorf("scratch worktree %s: %w", scratch, err)
	}
	head, conflicts, err := git.MergeNoFF(scratch, c.Tip, fmt.Sprintf("Land %s: %s", c.Worker, c.Branch))
	if errors.Is(err, git.ErrConflict) {
		r.State, r.Conflicts, r.TestedCommit = NeedsRebase, conflicts, ""
		r.Reason = fmt.Sprintf("conflicts with %s in %s", c.Target, strings.Join(conflicts, ", "))
		return save(d, r)
	}
	if err != nil {
		return fmt.Errorf("merging %s: %w", c.Branch, err)
	}
	r.State, r.TestedCommit, r.Conflicts, r.Reason, r.OutputFile = Testing, head, nil, "", ""
	if err := save(d, r); err != nil {
		return err
	}
	if green, err := testMerge(d, c, r, scratch, ""); err != nil || !green {
		return err
	}
	if err := moveTarget(c, old, head); err != nil {
		if errors.Is(err, errTargetMoved) {
			return err
		}
		r.State, r.Reason = Queued, err.Error()
		return save(d, r)
	}
	r.State, r.Commit = Landed, head
	return save(d, r)
}

// moveTarget moves the target from old to head: a checkout of it in some worktree is
// fast-forwarded (its files with it) unless its changes stand in the way (checkoutFree),
// and left alone when they do; an unchecked-out
// branch is moved by compare-and-swap. Either way a target that is no longer at old is
// errTargetMoved, and nothing moves.
func moveTarget(c Candidate, old, head string) error {
	ref := "refs/heads/" + c.Target
	paths, err := git.CheckoutsOf(c.Repo, c.Target)
	if err != nil {
		return err
	}
	for _, p := range paths {
		if err := checkoutFree(c, p, old, head); err != nil {
			return err
		}
		if now, _ := git.ResolveCommit(c.Repo, ref); now != old {
			return errTargetMoved
		}
		if !git.IsAncestor(c.Repo, old, head) {
			return git.MoveCheckout(p, head)
		}
		return git.FastForward(p, head)
	}
	if err := git.CompareAndSwapRef(c.Repo, ref, head, old); err != nil {
		if now, _ := git.ResolveCommit(c.Repo, ref); now != old {
			return errTargetMoved
		}
		return err
	}
	return nil
}

// testMerge runs the record's test command on the merge in scratch; a red suite is recorded
// (where says on top of what, when not the target) and green is false.
func testMerge(d *state.Dir, c Candidate, r *Record, scratch, where string) (green bool, err error) {
	if r.TestCommand == "" {
		return true, nil
	}
	failed, err := runTests(scratch, r.TestCommand, OutputPath(d, c.Worker))
	if err != nil || failed == "" {
		return err == nil, err
	}
	if where != "" {
		failed += " on top of " + where
	}
	r.State, r.Reason, r.OutputFile = BreaksTests, failed, OutputPath(d, c.Worker)
	return false, save(d, r)
}
