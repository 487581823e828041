package ralph

import (
	"strings"
	"testing"
	"time"
)

const silentServer = "tmux server (socket s) is not answering"

func silentFacts(silent time.Duration, escalated, told bool) SilentStartFacts {
	return SilentStartFacts{Iteration: 2, Server: silentServer, Silent: silent, Escalated: escalated, Told: told}
}

// The first word of an outage found as an iteration is to start is an escalation; the loop
// waits and asks again.
func TestSilentStartEscalatesAnOutageFirstSeenAtTheStart(t *testing.T) {
	s := StartWhileSilent(silentFacts(0, false, false), 0)
	want := silentServer + " — iteration 2 waits for the tmux server to start (at most 30m, then the loop fails)"
	if s.Escalate != want {
		t.Errorf("escalation %q, want %q", s.Escalate, want)
	}
	if s.Retry != SilentStartRetry || s.Ended || s.Status != "" || len(s.Lines)+len(s.Events) != 0 {
		t.Errorf("got %+v, want a wait with nothing else said", s)
	}
}

// An outage escalated while the agent ran is not escalated again: the loop says once that the
// start waits.
func TestSilentStartSaysOnceThatTheStartWaits(t *testing.T) {
	s := StartWhileSilent(silentFacts(time.Minute, true, false), 0)
	if s.Escalate != "" || s.Retry != SilentStartRetry || s.Ended {
		t.Fatalf("got %+v, want a wait, not escalated again", s)
	}
	if len(s.Lines) != 1 || !s.Lines[0].Supervision || s.Lines[0].Text != "iteration 2 waits for the tmux server to start (at most 30m, then the loop fails)" {
		t.Errorf("lines %+v", s.Lines)
	}
}

// Once said, the loop waits without a word.
func TestSilentStartWaitsQuietlyOnceTold(t *testing.T) {
	s := StartWhileSilent(silentFacts(10*time.Minute, true, true), 0)
	if s.Escalate != "" || s.Retry != SilentStartRetry || s.Ended || len(s.Lines)+len(s.Events) != 0 {
		t.Errorf("got %+v, want a quiet wait", s)
	}
}

// At the limit the loop gives up: failed, escalated, with a reason of its own.
func TestSilentStartGivesUpAtTheLimit(t *testing.T) {
	for _, c := range []struct {
		limit, silent time.Duration
		words         string
	}{{0, TmuxOutageLimit, "30m"}, {time.Minute, time.Minute + time.Second, "1m"}} {
		s := StartWhileSilent(silentFacts(c.silent, true, true), c.limit)
		if !s.Ended || s.Status != StatusFailed || s.ExitReason != ReasonTmuxSilent || s.Retry != 0 {
			t.Fatalf("limit %s: got %+v, want a failed loop", c.limit, s)
		}
		want := silentServer + " for " + c.words + ": cannot start iteration 2, stopping loop"
		if s.Decision.Escalate != want {
			t.Errorf("escalation %q, want %q", s.Decision.Escalate, want)
		}
		if len(s.Events) != 1 || s.Events[0].Kind != "FAIL" || s.Events[0].Text != want {
			t.Errorf("events %+v", s.Events)
		}
		if len(s.Lines) != 1 || !strings.Contains(s.Lines[0].Text, "cannot start iteration 2") {
			t.Errorf("lines %+v", s.Lines)
		}
	}
	if s := StartWhileSilent(silentFacts(TmuxOutageLimit-time.Second, true, true), 0); s.Ended {
		t.Error("gave up before the limit")
	}
}
