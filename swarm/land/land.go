package land

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/ralph/words"
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
	// TestTimeout bounds one run of the test command and each git command of the landing that
	// runs the repository's hooks (a merge, a fast-forward); 0: no limit.
	TestTimeout time.Duration
	// Context ends the landing early (the user interrupted it): what runs is ended at once and
	// nothing moves. nil: never. (A field, not an argument, so that Land reads as it always did.)
	Context context.Context
	// Progress is told each step of the landing as it starts; nil: nobody.
	Progress func(Event)
}

// landing is one branch's way through Land: what it works on and the record it keeps.
type landing struct {
	ctx     context.Context
	d       *state.Dir
	c       Candidate
	r       *Record
	o       Options
	scratch string
}

// Land merges c's branch onto its target in the scratch worktree, tests the merge with
// o.TestCommand and moves the target to it if green, then, with o.Push, pushes it. It holds
// the repository's landing lock throughout, so two runs take turns, and it returns the record
// it left; err is for what went wrong around the landing (git failing, files, an interrupt),
// not for a branch that was sent back, and is recorded as the reason when it can be.
func Land(d *state.Dir, c Candidate, o Options) (*Record, error) {
	lock, err := lockRepo(d, c.Repo)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	r := &Record{Worker: c.Worker, Branch: c.Branch, Target: c.Target, Repo: c.Repo, BranchCommit: c.Tip,
		TestCommand: o.TestCommand, State: Queued, Clone: c.Clone != ""}
	if c.Record != nil {
		r.Queued = c.Record.Queued
	}
	if err := save(d, r); err != nil {
		return nil, err
	}
	l := newLanding(d, c, r, o)
	endLeftoverTests(l.scratch)
	if err := l.land(); err != nil {
		l.failed(err)
		return r, err
	}
	return r, nil
}

func newLanding(d *state.Dir, c Candidate, r *Record, o Options) *landing {
	ctx := o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	return &landing{ctx: ctx, d: d, c: c, r: r, o: o, scratch: scratchPath(d, c.Repo)}
}

// land takes the branch through merge, test and move, again when another land moved the
// target meanwhile, then pushes.
func (l *landing) land() error {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		err := l.attempt()
		if err == nil && l.o.Push && l.r.State == Landed && l.r.Reason == "" {
			err = l.push()
		}
		if !errors.Is(err, errTargetMoved) {
			return err
		}
	}
	l.r.State, l.r.Reason = Queued, fmt.Sprintf("%s kept moving under the merge; not landed", l.c.Target)
	return l.save()
}

// failed records err as the reason the landing stopped, when the record can still be
// written: a branch not landed is queued again; one landed stays landed.
func (l *landing) failed(err error) {
	if l.r.State != Landed {
		l.r.State = Queued
	}
	l.r.MoveFrom = ""
	l.r.Reason = words.OneLine(err.Error())
	_ = l.save()
}

func (l *landing) save() error { return save(l.d, l.r) }

// bound is the context of one git command of the landing: its time limit, and the end of
// the landing itself.
func (l *landing) bound() (context.Context, context.CancelFunc) { return limit(l.ctx, l.o.TestTimeout) }

// limit is ctx with the time limit d (none when 0).
func limit(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// tell passes a step to the landing's Progress.
func (l *landing) tell(e Event) {
	if l.o.Progress == nil {
		return
	}
	e.Worker, e.Branch = l.c.Worker, l.c.Branch
	if e.Target == "" {
		e.Target = l.c.Target
	}
	e.Time = time.Now()
	l.o.Progress(e)
}

// lockRepo takes repo's landing lock: two runs on one repository take turns.
func lockRepo(d *state.Dir, repo string) (*state.Lock, error) {
	if err := os.MkdirAll(Root(d), 0o700); err != nil {
		return nil, err
	}
	return state.AcquireLock(lockPath(d, repo))
}

func lockPath(d *state.Dir, repo string) string {
	return filepath.Join(Root(d), repoKey(repo)+".lock")
}

// scratchPath is swarm's own worktree of repo where branches are merged and tested.
func scratchPath(d *state.Dir, repo string) string {
	return filepath.Join(Root(d), repoKey(repo)+".scratch")
}

// attempt is one merge, test and move on the target as it is now.
func (l *landing) attempt() error {
	c, r := l.c, l.r
	old, err := git.ResolveCommit(c.Repo, "refs/heads/"+c.Target)
	if err != nil {
		return fmt.Errorf("target branch %s: %w", c.Target, err)
	}
	if git.IsAncestor(c.Repo, c.Tip, old) {
		// Another run landed it while this one waited for the lock.
		r.State, r.Commit, r.Reason = Landed, old, fmt.Sprintf("already on %s", c.Target)
		return l.save()
	}
	head, tested := l.testedBefore(old)
	if !tested {
		if head, err = l.merge(old, c.Tip, c.Target); err != nil || head == "" {
			return err
		}
		if green, err := l.test(""); err != nil || !green {
			return err
		}
	}
	if why := l.branchMoved(); why != "" {
		r.State, r.Reason = Queued, why
		return l.save()
	}
	return l.move(old, head)
}

// testedBefore finds the merge the run before this one tested green on the target as it is
// now, of the same branch tip with the same test command, and ended while it moved the
// target to it (its record says so): moving it now is all that is left to do.
func (l *landing) testedBefore(old string) (head string, ok bool) {
	p := l.c.Record
	if p == nil || p.MoveFrom != old || p.BranchCommit != l.c.Tip || p.TestCommand != l.r.TestCommand || p.TestedCommit == "" {
		return "", false
	}
	if _, err := git.ResolveCommit(l.c.Repo, p.TestedCommit); err != nil {
		return "", false
	}
	l.r.State, l.r.TestedCommit = Testing, p.TestedCommit
	return p.TestedCommit, true
}

// merge merges commit onto base in the scratch worktree and records it as under test; head
// is "" when it did not merge (conflicts, or the repository's hooks refused it: recorded).
func (l *landing) merge(base, commit, onto string) (head string, err error) {
	r := l.r
	l.tell(Event{Step: StepMerging, Target: onto})
	ctx, cancel := l.bound()
	err = git.ResetScratch(ctx, l.c.Repo, l.scratch, base)
	cancel()
	if err != nil {
		return "", fmt.Errorf("scratch worktree %s: %w", l.scratch, err)
	}
	ctx, cancel = l.bound()
	head, conflicts, err := git.MergeNoFF(ctx, l.scratch, commit, fmt.Sprintf("Land %s: %s", l.c.Worker, l.c.Branch))
	cancel()
	switch {
	case errors.Is(err, git.ErrConflict):
		r.State, r.Conflicts, r.TestedCommit = NeedsRebase, conflicts, ""
		r.Reason = fmt.Sprintf("conflicts with %s in %s", onto, strings.Join(conflicts, ", "))
		return "", l.save()
	case errors.Is(err, git.ErrMergeRefused), errors.Is(err, git.ErrTimedOut):
		// Not the branch's fault, so not sent back: queued, with what refused it.
		r.State, r.Conflicts, r.TestedCommit = Queued, nil, ""
		r.Reason = fmt.Sprintf("not merged onto %s: %s", onto, words.OneLine(err.Error()))
		return "", l.save()
	case err != nil:
		return "", fmt.Errorf("merging %s onto %s: %w", l.c.Branch, onto, err)
	}
	r.State, r.TestedCommit, r.Conflicts, r.Reason, r.OutputFile = Testing, head, nil, "", ""
	r.OutputSize, r.OutputCut = 0, false
	return head, l.save()
}

// branchMoved says why the branch's tip is not the commit that was merged and tested any
// more (its worker or a person moved or deleted it meanwhile): landing the old tip would
// drop the new work without a word. "" when it is still there.
func (l *landing) branchMoved() string {
	c := l.c
	now, err := git.ResolveCommit(c.Repo, "refs/heads/"+c.Branch)
	if err != nil || !git.BranchExists(c.Repo, c.Branch) {
		return fmt.Sprintf("%s's branch %s was deleted while it was tested; not landed", c.Worker, c.Branch)
	}
	if now == c.Tip && c.Clone != "" {
		// A clone's worker moves its branch in the clone; one gone since leaves the tip as it was.
		if inClone, err := git.ResolveCommit(c.Clone, "refs/heads/"+c.Branch); err == nil {
			now = inClone
		}
	}
	if now != c.Tip {
		return fmt.Sprintf("%s's branch moved while it was tested (%s → %s); not landed: run swarm land again",
			c.Worker, ralph.ShortCommit(c.Tip), ralph.ShortCommit(now))
	}
	return ""
}

// move moves the target from old to the tested head. The intent is recorded first (the
// commit the target moves from), so that whoever reads the record after a run ended in the
// middle of the move (killed, a full disk) can tell from the target whether it moved; a
// record that cannot be written moves nothing.
func (l *landing) move(old, head string) error {
	r, c := l.r, l.c
	r.MoveFrom = old
	if err := l.save(); err != nil {
		r.MoveFrom = ""
		return fmt.Errorf("tested, not landed: the landing record cannot be written (%w); %s was not moved", err, c.Target)
	}
	l.tell(Event{Step: StepMoving, Commit: head})
	// Under the time limit alone: an interrupt does not cut a move of the user's checkout short.
	ctx, cancel := limit(context.Background(), l.o.TestTimeout)
	err := moveTarget(ctx, c, old, head)
	cancel()
	r.MoveFrom = ""
	if err != nil && l.holds(head) {
		// The target moved, and then something failed (a hook after the move): landed.
		err = nil
	}
	switch {
	case errors.Is(err, errTargetMoved):
		return err
	case err != nil:
		r.State, r.Reason = Queued, words.OneLine(err.Error())
		return l.save()
	}
	r.State, r.Commit = Landed, head
	if err := l.save(); err != nil {
		return fmt.Errorf("landed on %s at %s, but the landing record cannot be written: %w", c.Target, ralph.ShortCommit(head), err)
	}
	return nil
}

// holds reports whether the target now holds commit.
func (l *landing) holds(commit string) bool {
	now, err := git.ResolveCommit(l.c.Repo, "refs/heads/"+l.c.Target)
	return err == nil && git.IsAncestor(l.c.Repo, commit, now)
}

// moveTarget moves the target from old to head: a checkout of it in some worktree is
// fast-forwarded (its files with it) unless its changes stand in the way (checkoutFree),
// and left alone when they do; an unchecked-out
// branch is moved by compare-and-swap. Either way a target that is no longer at old is
// errTargetMoved, and nothing moves.
func moveTarget(ctx context.Context, c Candidate, old, head string) error {
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
			return git.MoveCheckout(ctx, p, head)
		}
		return git.FastForward(ctx, p, head)
	}
	if err := git.CompareAndSwapRef(ctx, c.Repo, ref, head, old); err != nil {
		if now, _ := git.ResolveCommit(c.Repo, ref); now != old {
			return errTargetMoved
		}
		return err
	}
	return nil
}
