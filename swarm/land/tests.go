package land

import (
	"fmt"
	"time"

	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/proc"
	"github.com/swarm-dev/swarm/ralph/testrun"
	"github.com/swarm-dev/swarm/ralph/words"
)

// testTag is the environment entry every process of a test run in the scratch worktree dir
// carries, so that the next run can end what a run killed half way left running there.
func testTag(dir string) string { return "SWARM_LAND_TEST=" + dir }

// endLeftoverTests ends the processes a killed run's test command left running in the scratch
// worktree dir, before the tree is reset under them.
func endLeftoverTests(dir string) { proc.KillTagged(testTag(dir), 0, 2*time.Second) }

// test runs the record's test command on the merge in the scratch worktree, by the one runner
// of test commands the loop's test gate uses too (package testrun): its time limit, its own
// process group (ended whole at the limit or an interrupt; dying with this process, what it
// left tagged for the next run to end), its output kept bounded in OutputPath. A red suite,
// or one out of time, is recorded as breaking the tests (where says on top of what, when not
// the target); a command that cannot run at all is the configuration's fault, not the
// branch's: the record stays queued, saying why, and nothing is sent back. green is false
// unless it passed; err is for an interrupt or a record that cannot be written.
func (l *landing) test(where string) (green bool, err error) {
	r := l.r
	if r.TestCommand == "" {
		return true, nil
	}
	l.tell(Event{Step: StepTesting, Command: r.TestCommand})
	out := OutputPath(l.d, l.c.Worker)
	res := testrun.Run(l.ctx, testrun.Spec{Command: r.TestCommand, Dir: l.scratch, Timeout: l.o.TestTimeout,
		Env: []string{testTag(l.scratch)}, OutputFile: out})
	l.tell(Event{Step: StepTested, Command: r.TestCommand, Elapsed: res.Elapsed, Outcome: outcomeWord(res)})
	if res.Outcome == testrun.Passed {
		return true, nil
	}
	r.OutputFile, r.OutputSize, r.OutputCut = out, res.Size, res.Cut
	kept := ""
	if res.OutputErr != nil {
		r.OutputFile, kept = "", fmt.Sprintf(" (its output could not be kept: %v)", res.OutputErr)
	}
	switch res.Outcome {
	case testrun.CutShort:
		return false, fmt.Errorf("interrupted while testing; not landed")
	case testrun.CannotRun:
		r.State = Queued
		r.Reason = fmt.Sprintf("%v; not tested, not landed (nothing is sent back: fix the test command)%s", res.Err(), kept)
		return false, l.save()
	}
	failed := res.Err().Error() + " on the merge"
	if where != "" {
		failed += " on top of " + where
	}
	r.State, r.Reason = BreaksTests, failed+kept
	return false, l.save()
}

// outcomeWord is how a test run ended, in a few words: "passed", "tests failed (exit 1)".
func outcomeWord(res testrun.Result) string {
	if res.Outcome == testrun.Passed {
		return "passed"
	}
	return res.Err().Error()
}

// ConfigTestCommand is the test command the configuration gives a loop started in the
// repository repo ([regent] test_command of swarm.toml or of the user's config.toml); "" when
// none. A project file that names commands the user has not allowed is refused here as it is
// for a loop (config.ErrNotAllowed): landing runs the command just the same. So is a file that
// is not the user's alone and names a test command: a loop goes on without such a file's
// settings, but landing without the tests it names would land what they were there to stop.
func ConfigTestCommand(repo string) (string, error) {
	cfg := config.Load(repo)
	rf, err := cfg.Supervision()
	if err != nil {
		return "", err
	}
	if src, ok := cfg.IgnoredNaming("[regent] test_command"); ok {
		return "", fmt.Errorf("%w: %s names the tests to land with, and %s: read it, then run 'swarm allow %s', or give --test-command",
			config.ErrNotAllowed, src.Path, src.Why(), words.ShellWord(src.Path))
	}
	if rf.TestCommand == nil {
		return "", nil
	}
	return *rf.TestCommand, nil
}
