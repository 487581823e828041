package ralph

import (
	"reflect"
	"testing"
)

// One decision in, the notices out: each test is one kind of moment.

func wantNotices(t *testing.T, got []Notice, want ...Notice) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("notices %+v, want %+v", got, want)
	}
}

func TestNoticeLoopDoneByDoneFile(t *testing.T) {
	var d Decision
	d.event("DONE", "DONE file present at /x/DONE")
	d.Stop(StatusStopped, "done_file", "")
	wantNotices(t, Notices(d, NoticeFacts{}), Notice{NotifyDone, "the DONE file appeared (done_file)"})
}

func TestNoticeLoopCompleteAfterCheckers(t *testing.T) {
	var d Decision
	d.Stop(StatusStopped, "complete", "")
	wantNotices(t, Notices(d, NoticeFacts{}), Notice{NotifyDone, "the completion checkers passed (complete)"})
}

// Running out of iterations says nothing of the work: the loop stopped, it is not done.
func TestNoticeIterationLimitIsStopped(t *testing.T) {
	var d Decision
	d.Stop(StatusStopped, "max_iterations", "max iterations (3) reached")
	wantNotices(t, Notices(d, NoticeFacts{}), Notice{NotifyStopped, "iteration limit reached (max_iterations)"})
}

func TestNoticeEveryIterationFailedIsFailed(t *testing.T) {
	d := allFailed(3)
	wantNotices(t, Notices(d, NoticeFacts{}), Notice{NotifyFailed, "max iterations reached (3) and every iteration failed"})
}

// The agent asked to wait: the loop stopped for a person to look, its work not finished.
func TestNoticeWaitWithoutRestartIsStopped(t *testing.T) {
	var d Decision
	d.Stop(StatusStopped, "wait_without_restart", "")
	wantNotices(t, Notices(d, NoticeFacts{}), Notice{NotifyStopped, "the agent asked to wait without a restart (wait_without_restart)"})
}

func TestNoticeDonePattern(t *testing.T) {
	wantNotices(t, Notices(DonePatternSeen(4), NoticeFacts{}), Notice{NotifyDone, "the done pattern matched (done_pattern)"})
}

func TestNoticeStopForAReasonNotKnownIsStopped(t *testing.T) {
	var d Decision
	d.Stop(StatusStopped, "spec_queue_empty", "")
	wantNotices(t, Notices(d, NoticeFacts{}), Notice{NotifyStopped, "the loop stopped (spec_queue_empty)"})
}

func TestNoticeChainStepOutOfIterationsIsNotStopped(t *testing.T) {
	var d Decision
	d.Stop(StatusStopped, "max_iterations", "")
	wantNotices(t, Notices(d, NoticeFacts{MoreSteps: true}))
}

func TestNoticeChainStepWithMoreStepsIsNotDone(t *testing.T) {
	var d Decision
	d.Stop(StatusStopped, "done_file", "")
	wantNotices(t, Notices(d, NoticeFacts{MoreSteps: true}))
}

func TestNoticeUserStopIsNotNotified(t *testing.T) {
	wantNotices(t, Notices(Killed(&State{Status: StatusRunning}), NoticeFacts{}))
}

func TestNoticeFailedCarriesTheEscalation(t *testing.T) {
	var d Decision
	d.Stop(StatusFailed, "consecutive_failures", "3 consecutive failures")
	d.Escalate = "3 consecutive failures (last exit: 1)"
	wantNotices(t, Notices(d, NoticeFacts{}), Notice{NotifyFailed, "3 consecutive failures (last exit: 1)"})
}

func TestNoticeFailedWithoutEscalationNamesTheReason(t *testing.T) {
	var d Decision
	d.Stop(StatusFailed, "prompt_unreadable", "")
	wantNotices(t, Notices(d, NoticeFacts{}), Notice{NotifyFailed, "prompt_unreadable"})
}

func TestNoticeStagnated(t *testing.T) {
	var d Decision
	d.event("STAGNATED", "no git changes in 3 iterations")
	d.Stop(StatusStopped, "stagnated", "")
	wantNotices(t, Notices(d, NoticeFacts{}), Notice{NotifyStagnated, "no git changes in 3 iterations"})
}

func TestNoticeBudget(t *testing.T) {
	var d Decision
	d.Stop(StatusStopped, "budget_exceeded", "")
	d.Escalate = "budget exceeded: $1.2000 of $1.00"
	wantNotices(t, Notices(d, NoticeFacts{}), Notice{NotifyBudget, "budget exceeded: $1.2000 of $1.00"})
}

func TestNoticeUsageLimitWait(t *testing.T) {
	var d Decision
	d.event("LIMIT", "iteration 4 usage limit reached; waiting until 2026-11-25T19:30:00Z")
	wantNotices(t, Notices(d, NoticeFacts{}),
		Notice{NotifyUsageLimit, "iteration 4 usage limit reached; waiting until 2026-11-25T19:30:00Z"})
}

func TestNoticeResurrection(t *testing.T) {
	var d Decision
	d.event("RESURRECT", "monitor pid 42 died; resurrected at iteration 2 (#1)")
	wantNotices(t, Notices(d, NoticeFacts{}), Notice{NotifyResurrected, "monitor pid 42 died; resurrected at iteration 2 (#1)"})
}

func TestNoticeRollbackIsOneForAllReverts(t *testing.T) {
	var d Decision
	d.event("ROLLBACK", "reverted abc1234")
	d.event("ROLLBACK", "reverted def5678")
	wantNotices(t, Notices(d, NoticeFacts{}), Notice{NotifyRollback, "tests failed; reverted abc1234, def5678"})
}

func TestNoticeOrdinaryIterationIsQuiet(t *testing.T) {
	var d Decision
	d.event("END", "iteration 2 exit=0 duration=3s")
	d.Say("starting iteration 3/10")
	wantNotices(t, Notices(d, NoticeFacts{}))
}
