package daemon

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// A loop the Regent cannot claim (a full disk) is tried again after a pause that grows, not
// at every scan; the failure is said once in each log until a claim works, and the Regent does
// not leave while it still owes the loop a claim.
func TestAClaimThatFailsIsTriedAgainAfterAGrowingPause(t *testing.T) {
	mt := newTestMachine(t)
	var log, loopLog strings.Builder
	r := newDaemon(mt.Machine, &log)
	full := errors.New("write state.json.tmp-1: no space left on device")

	r.claimFailed("l", full, &loopLog)
	now := time.Now()
	if !r.claimPaused("l", now) || r.claimPaused("l", now.Add(3*time.Second)) {
		t.Error("the first retry is not due 2 s later")
	}
	if d := r.retryIn("l"); d < time.Second || d > 2*time.Second {
		t.Errorf("retried in %v, want about 2 s", d)
	}
	if r.idle() {
		t.Error("idle while a loop waits to be claimed again")
	}
	r.claimFailed("l", full, &loopLog)
	r.claimFailed("l", full, &loopLog)
	if d := r.retryIn("l"); d < 7*time.Second || d > 8*time.Second {
		t.Errorf("the third retry in %v, want about 8 s", d)
	}
	for _, l := range []string{log.String(), loopLog.String()} {
		if strings.Count(l, "no space left on device") != 1 {
			t.Errorf("said %d times, want once:\n%s", strings.Count(l, "no space left"), l)
		}
	}
	r.claimed("l")
	if !strings.Contains(log.String(), "loop l: claimed after 3 failed attempts") {
		t.Errorf("log:\n%s", log.String())
	}
	if r.claimPaused("l", now) || r.retryIn("l") != retryAfter || !r.idle() {
		t.Error("a loop claimed is still waited for")
	}
	r.claimFailed("k", full, &loopLog)
	r.drop("k")
	if r.claimFailing("k") {
		t.Error("a dropped loop is still to be claimed")
	}
}
