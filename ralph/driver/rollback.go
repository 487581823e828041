package driver

import (
	"context"
	"errors"
	"time"

	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/ralph/testrun"
)

// errTestsCutShort marks a test run ended because the loop is being stopped: not tested, so
// neither a pass nor a failure.
var errTestsCutShort = errors.New("tests cut short: the loop is stopping")

// runTests runs the test command in dir by the one runner of test commands (package
// testrun): in its own process group, recorded while it runs so that a driver's successor
// ends what a dead driver left, ended whole at the time limit or at once when ctx ends.
func runTests(ctx context.Context, dir, command string, timeout time.Duration) testrun.Result {
	return testrun.Run(ctx, testrun.Spec{Command: command, Dir: dir, Timeout: timeout, Started: trackChild})
}

// testsFailedAt runs the test command on an earlier commit, in a throwaway worktree, to tell
// a regression from a suite that was failing already. A run ctx cut short is
// errTestsCutShort; a command that cannot run (a configuration error, never grounds for
// reverting anybody's commit) wraps testrun.ErrCannotRun.
func testsFailedAt(ctx context.Context, dir, commit, command string, timeout time.Duration) (bool, error) {
	failed := false
	err := git.WithCheckout(dir, commit, func(wt string) error {
		switch res := runTests(ctx, wt, command, timeout); res.Outcome {
		case testrun.CutShort:
			return errTestsCutShort
		case testrun.CannotRun:
			return res.Err()
		default:
			failed = res.Outcome != testrun.Passed
		}
		return nil
	})
	return failed, err
}
