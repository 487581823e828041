package swarm

import (
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

var untilNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func runningWorker() *state.Worker {
	return &state.Worker{Name: "w", Status: state.StatusRunning, Tmux: &state.TmuxInfo{}}
}

func stoppedWorker(code int) *state.Worker {
	return &state.Worker{Name: "w", Status: state.StatusStopped, ExitCode: &code}
}

func TestDecideUntil(t *testing.T) {
	working := &ralph.State{Status: ralph.StatusRunning, Phase: ralph.PhaseWorking, LastScreenChange: untilNow.Add(-time.Second).Format(time.RFC3339)}
	quiet := &ralph.State{Status: ralph.StatusRunning, Phase: ralph.PhaseWorking, LastScreenChange: untilNow.Add(-time.Minute).Format(time.RFC3339)}
	dialog := &ralph.State{Status: ralph.StatusRunning, BlockedBy: "trust-folder"}
	done := &ralph.State{Status: ralph.StatusStopped, ExitReason: "done_pattern"}
	failed := &ralph.State{Status: ralph.StatusFailed, ExitReason: "consecutive_failures"}
	paused := &ralph.State{Status: ralph.StatusPaused, ExitReason: "paused"}
	between := &ralph.State{Status: ralph.StatusRunning} // its agent ended, the next one to come
	for _, c := range []struct {
		name, goal string
		f          untilFacts
		reached    bool
		never      bool
		line       string
	}{
		{"done: done", untilDone, untilFacts{w: stoppedWorker(143), loop: done}, true, false, "w: done"},
		{"done: still working", untilDone, untilFacts{w: runningWorker(), loop: working}, false, false, ""},
		{"done: paused may go on", untilDone, untilFacts{w: stoppedWorker(143), loop: paused}, false, false, ""},
		{"done: failed never", untilDone, untilFacts{w: stoppedWorker(1), loop: failed}, false, true, "w: exited (loop failed: consecutive_failures), not done"},
		{"done: gone never", untilDone, untilFacts{}, false, true, "w: exited, not done"},
		{"needs-person: a dialog", untilNeedsPerson, untilFacts{w: runningWorker(), loop: dialog}, true, false, "w: needs a person (dialog: trust-folder)"},
		{"needs-person: working", untilNeedsPerson, untilFacts{w: runningWorker(), loop: working}, false, false, ""},
		{"needs-person: done never", untilNeedsPerson, untilFacts{w: stoppedWorker(143), loop: done}, false, true, "w: exited (loop done), needing no person"},
		{"idle: quiet a minute", untilIdle, untilFacts{w: runningWorker(), loop: quiet}, true, false, "w: idle"},
		{"idle: at a dialog is blocked", untilIdle, untilFacts{w: runningWorker(), loop: dialog}, false, false, ""},
		{"idle: a plain worker quiet", untilIdle, untilFacts{w: runningWorker(), activity: untilNow.Add(-time.Hour)}, true, false, "w: idle"},
		{"idle: a plain worker ended", untilIdle, untilFacts{w: stoppedWorker(0)}, false, true, "w: exited 0, never idle"},
		{"ended: a plain worker", untilEnded, untilFacts{w: stoppedWorker(4)}, true, false, "w: exited 4"},
		{"ended: a loop failed", untilEnded, untilFacts{w: stoppedWorker(1), loop: failed}, true, false, "w: exited (loop failed: consecutive_failures)"},
		{"ended: paused has not", untilEnded, untilFacts{w: stoppedWorker(143), loop: paused}, false, false, ""},
		{"ended: between agents, its monitor on", untilEnded, untilFacts{w: stoppedWorker(143), loop: between, goesOn: true}, false, false, ""},
		{"ended: between agents, no monitor", untilEnded, untilFacts{w: stoppedWorker(143), loop: between}, true, false, "w: exited (loop stopped)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.f.now = untilNow
			v := decideUntil(c.goal, "w", c.f)
			if v.reached != c.reached || v.never != c.never || v.line != c.line {
				t.Errorf("decideUntil = %+v; want reached %v never %v %q", v, c.reached, c.never, c.line)
			}
		})
	}
}

// A worker not idle yet is looked at again when it would be, if its screen stays still: the
// wait needs no poll to see it turn idle.
func TestIdleIsLookedForWhenItWouldCome(t *testing.T) {
	changed := untilNow.Add(-10 * time.Second)
	loop := &ralph.State{Status: ralph.StatusRunning, Phase: ralph.PhaseWorking, LastScreenChange: changed.Format(time.RFC3339)}
	v := decideUntil(untilIdle, "w", untilFacts{w: runningWorker(), loop: loop, now: untilNow})
	if v.reached || !v.wake.Equal(changed.Add(idleAfter)) {
		t.Fatalf("loop: %+v", v)
	}
	v = decideUntil(untilIdle, "w", untilFacts{w: runningWorker(), activity: changed, now: untilNow})
	if v.reached || !v.wake.Equal(changed.Add(idleAfter)) {
		t.Fatalf("plain worker: %+v", v)
	}
}

func TestUntilTimeoutSaysTheStateNow(t *testing.T) {
	dialog := &ralph.State{Status: ralph.StatusRunning, NeedsPermission: "Claude needs your permission to use Bash(ls)"}
	for _, c := range []struct {
		goal string
		f    untilFacts
		want string
	}{
		{untilDone, untilFacts{w: runningWorker(), loop: &ralph.State{Status: ralph.StatusRunning}}, "w: running, not done (timeout)"},
		{untilDone, untilFacts{w: runningWorker(), loop: dialog}, "w: blocked (permission: Bash(ls)), not done (timeout)"},
		{untilNeedsPerson, untilFacts{w: stoppedWorker(143), loop: &ralph.State{Status: ralph.StatusPaused}}, "w: paused, not needing a person (timeout)"},
		{untilIdle, untilFacts{w: runningWorker()}, "w: running, not idle (timeout)"},
	} {
		if got := untilTimeout(c.goal, "w", c.f); got != c.want {
			t.Errorf("untilTimeout = %q; want %q", got, c.want)
		}
	}
}

func TestUntilNeedsALoopOrAWindow(t *testing.T) {
	loop := &state.Worker{Name: "l", Metadata: map[string]any{"ralph": true}}
	plain := &state.Worker{Name: "p", Tmux: &state.TmuxInfo{}}
	process := &state.Worker{Name: "q"}
	for _, c := range []struct {
		goal string
		w    *state.Worker
		says string
	}{
		{untilDone, loop, ""},
		{untilNeedsPerson, loop, ""},
		{untilDone, plain, "'p' runs no loop"},
		{untilNeedsPerson, process, "'q' runs no loop"},
		{untilIdle, plain, ""},
		{untilIdle, process, "'q' runs in no tmux window"},
		{untilEnded, process, ""},
	} {
		if got := untilNeeds(c.goal, c.w); c.says == "" && got != "" || !strings.Contains(got, c.says) {
			t.Errorf("untilNeeds(%s, %s) = %q; want %q", c.goal, c.w.Name, got, c.says)
		}
	}
}
