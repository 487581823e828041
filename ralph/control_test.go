package ralph

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestPause(t *testing.T) {
	d, err := Pause(&State{Status: StatusRunning}, "paused by user", "paused")
	if err != nil {
		t.Fatal(err)
	}
	check(t, d, want{status: StatusPaused, reason: "paused", events: []string{"[PAUSE] paused by user"}})
	if _, err := Pause(&State{Status: StatusPaused}, "x", "paused"); !errors.Is(err, ErrUnchanged) {
		t.Errorf("pausing a paused loop: %v, want ErrUnchanged", err)
	}
	if _, err := Pause(&State{Status: StatusFailed}, "x", "paused"); !errors.Is(err, ErrNotRunning) || err.Error() != "not running (failed)" {
		t.Errorf("pausing a failed loop: %v", err)
	}
}

func TestResume(t *testing.T) {
	cases := []struct {
		name    string
		st      State
		req     ResumeRequest
		monitor bool
		err     error
		want    want
		max     int
	}{
		{"a paused loop runs again", State{Status: StatusPaused, ExitReason: "paused", MaxIterations: 5, CurrentIteration: 2},
			ResumeRequest{}, true, nil, want{status: StatusRunning, events: []string{"[RESUME] resumed by user"}}, 0},
		{"a paused loop whose monitor still runs needs none", State{Status: StatusPaused, MaxIterations: 5},
			ResumeRequest{MonitorAlive: true}, false, nil, want{status: StatusRunning, events: []string{"[RESUME] resumed by user"}}, 0},
		{"a running loop without a monitor gets one", State{Status: StatusRunning, MaxIterations: 5},
			ResumeRequest{}, true, nil, want{status: StatusRunning, events: []string{"[RESUME] monitor restarted"}}, 0},
		{"a running loop with its monitor: nothing to do", State{Status: StatusRunning, MaxIterations: 5},
			ResumeRequest{MonitorAlive: true}, false, ErrUnchanged, want{}, 0},
		{"a failed loop restarts with its failures reset", State{Status: StatusFailed, ExitReason: "consecutive_failures", MaxIterations: 9,
			CurrentIteration: 6, ConsecutiveFailures: 5, TotalFailures: 7},
			ResumeRequest{}, true, nil, want{status: StatusRunning, phase: PhaseEnded, failures: [2]int{0, 7},
				events: []string{"[RESUME] resumed after failure (consecutive_failures; 5 consecutive failures reset)"}}, 0},
		{"a finished loop says so", State{Status: StatusStopped, ExitReason: "max_iterations", MaxIterations: 3, CurrentIteration: 3},
			ResumeRequest{}, false, ErrFinished, want{}, 0},
		{"a finished loop runs more with a higher limit", State{Status: StatusStopped, ExitReason: "max_iterations", MaxIterations: 3, CurrentIteration: 3},
			ResumeRequest{MaxIterations: 5}, true, nil, want{status: StatusRunning, phase: PhaseEnded,
				events: []string{"[RESUME] resumed after max_iterations, iteration limit 5"}}, 5},
		{"a limit below the current iteration is refused", State{Status: StatusStopped, MaxIterations: 3, CurrentIteration: 3},
			ResumeRequest{MaxIterations: 2}, false, errors.New("--max-iterations 2 is below the current iteration 3"), want{}, 0},
		{"a loop that ended done is not run again by accident", State{Status: StatusStopped, ExitReason: "done_file", MaxIterations: 5, CurrentIteration: 2},
			ResumeRequest{}, false, ErrDone, want{}, 0},
		{"nor with a higher limit", State{Status: StatusStopped, ExitReason: "complete", MaxIterations: 5, CurrentIteration: 5},
			ResumeRequest{MaxIterations: 9}, false, ErrDone, want{}, 0},
		{"a loop that ended done runs again when asked", State{Status: StatusStopped, ExitReason: "done_pattern", MaxIterations: 5, CurrentIteration: 2},
			ResumeRequest{Again: true}, true, nil, want{status: StatusRunning, phase: PhaseEnded,
				events: []string{"[RESUME] run again after done_pattern, iteration limit 5"}}, 0},
		{"asked to run again, a done loop still needs iterations left", State{Status: StatusStopped, ExitReason: "done_pattern", MaxIterations: 2, CurrentIteration: 2},
			ResumeRequest{Again: true}, false, ErrFinished, want{}, 0},
		{"a loop whose branch landed is not run again by accident", State{Status: StatusStopped, ExitReason: "max_iterations", MaxIterations: 3, CurrentIteration: 3},
			ResumeRequest{MaxIterations: 6, Landed: "branch w1 landed on main at 0123456"}, false, ErrLanded, want{}, 0},
		{"a failed loop whose branch landed neither", State{Status: StatusFailed, ExitReason: "consecutive_failures", MaxIterations: 9, CurrentIteration: 4},
			ResumeRequest{Landed: "branch w1 is on main"}, false, ErrLanded, want{}, 0},
		{"a loop whose branch landed runs again when asked", State{Status: StatusStopped, ExitReason: "max_iterations", MaxIterations: 3, CurrentIteration: 3},
			ResumeRequest{MaxIterations: 6, Landed: "branch w1 landed on main at 0123456", Again: true}, true, nil, want{status: StatusRunning, phase: PhaseEnded,
				events: []string{"[RESUME] run again after max_iterations, iteration limit 6"}}, 6},
		{"a paused loop goes on whatever its branch", State{Status: StatusPaused, ExitReason: "paused", MaxIterations: 5, CurrentIteration: 2},
			ResumeRequest{Landed: "branch w1 is on main"}, true, nil, want{status: StatusRunning, events: []string{"[RESUME] resumed by user"}}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, monitor, err := Resume(&c.st, c.req)
			if c.err != nil {
				if err == nil || !errors.Is(err, c.err) && err.Error() != c.err.Error() {
					t.Fatalf("err %v, want %v", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if monitor != c.monitor {
				t.Errorf("start a monitor: %v, want %v", monitor, c.monitor)
			}
			if !d.ClearExitReason || d.MaxIterations != c.max {
				t.Errorf("clear exit reason %v, max %d; want true, %d", d.ClearExitReason, d.MaxIterations, c.max)
			}
			check(t, d, c.want)
		})
	}
}

func TestResumeMessageForAFinishedLoop(t *testing.T) {
	_, _, err := Resume(&State{Status: StatusStopped, ExitReason: "done_pattern", MaxIterations: 5, CurrentIteration: 1}, ResumeRequest{})
	if err == nil || err.Error() != "done (done_pattern after 1 iteration)" {
		t.Errorf("a loop stopped by its done pattern: %v", err)
	}
	_, _, err = Resume(&State{Status: StatusStopped, ExitReason: "max_iterations", MaxIterations: 5, CurrentIteration: 5}, ResumeRequest{Landed: "branch w1 is on main"})
	if err == nil || err.Error() != "landed (branch w1 is on main)" {
		t.Errorf("a loop whose branch landed: %v", err)
	}
	_, _, err = Resume(&State{Status: StatusStopped, ExitReason: "max_iterations", MaxIterations: 1, CurrentIteration: 1}, ResumeRequest{})
	if err == nil || err.Error() != "finished (max_iterations after 1 iteration)" {
		t.Errorf("err %v", err)
	}
}

func TestKilled(t *testing.T) {
	for _, s := range []Status{StatusRunning, StatusPaused} {
		check(t, Killed(&State{Status: s}), want{status: StatusStopped, reason: "killed", events: []string{"[KILL] loop stopped by swarm kill"}})
	}
	for _, s := range []Status{StatusStopped, StatusFailed} {
		check(t, Killed(&State{Status: s}), want{})
	}
}

func TestTransitionAppliesUnderTheLock(t *testing.T) {
	dir := Dir{Path: t.TempDir()}
	if err := dir.Create(&State{Status: StatusFailed, ExitReason: "consecutive_failures", MaxIterations: 4, CurrentIteration: 2,
		ConsecutiveFailures: 5, TotalFailures: 5}); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	st, _, err := dir.Transition(now, func(s *State) (Decision, error) {
		d, _, err := Resume(s, ResumeRequest{})
		return d, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != StatusRunning || st.ExitReason != "" || st.ConsecutiveFailures != 0 || st.TotalFailures != 5 || st.Phase != PhaseEnded {
		t.Errorf("state after resume: %+v", st)
	}
	if got, _ := dir.Load(); got.Status != StatusRunning {
		t.Errorf("stored status %q", got.Status)
	}
	// A refused transition changes nothing.
	if _, _, err := dir.Transition(now, func(s *State) (Decision, error) { return Decision{Status: StatusStopped}, ErrUnchanged }); !errors.Is(err, ErrUnchanged) {
		t.Errorf("err %v", err)
	}
	if got, _ := dir.Load(); got.Status != StatusRunning {
		t.Errorf("a refused transition was applied: %q", got.Status)
	}
}

// A decision that changes nothing of the state writes nothing (a durable write waits for the
// disk twice), and its events are still logged; one that changes something is written.
func TestTransitionWritesOnlyAChange(t *testing.T) {
	dir := Dir{Path: t.TempDir()}
	if err := dir.Create(&State{Status: StatusRunning, CurrentIteration: 2}); err != nil {
		t.Fatal(err)
	}
	// The file is dated long ago: a write, which replaces it, would date it now.
	long := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(dir.StatePath(), long, long); err != nil {
		t.Fatal(err)
	}
	written := func() bool {
		fi, err := os.Stat(dir.StatePath())
		if err != nil {
			t.Fatal(err)
		}
		return !fi.ModTime().Equal(long)
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	var only Decision
	only.event("TESTS", "passed at %s", "abc1234")
	if _, err := dir.Apply(now, only); err != nil {
		t.Fatal(err)
	}
	if _, err := dir.Apply(now, Decision{}); err != nil {
		t.Fatal(err)
	}
	if written() {
		t.Error("a decision that changes nothing replaced the state file")
	}
	if data, _ := os.ReadFile(dir.IterationsLog()); !strings.Contains(string(data), "[TESTS] passed at abc1234") {
		t.Errorf("event not logged: %q", data)
	}
	if _, err := dir.Apply(now, Decision{Status: StatusPaused}); err != nil {
		t.Fatal(err)
	}
	if got, _ := dir.Load(); got.Status != StatusPaused || !written() {
		t.Errorf("a change was not written: status %q", got.Status)
	}
}

// What the driver says of a decision is said under the lock, once the state and the events
// are written: a reader that waits for the lock (Settled) finds all three or none.
func TestApplyThenSaysUnderTheLockOnceRecorded(t *testing.T) {
	dir := Dir{Path: t.TempDir()}
	if err := dir.Create(&State{Status: StatusRunning, CurrentIteration: 2}); err != nil {
		t.Fatal(err)
	}
	var d Decision
	d.Stop(StatusStopped, "done_pattern", "done pattern matched, stopping loop")
	d.event("DONE", "iteration 2 done pattern matched")
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	said := false
	if _, err := dir.ApplyThen(now, d, func() {
		said = true
		if st, _ := dir.Load(); st.Status != StatusStopped {
			t.Errorf("said before the state was written: %q", st.Status)
		}
		if log, _ := os.ReadFile(dir.IterationsLog()); !strings.Contains(string(log), "[DONE] iteration 2") {
			t.Errorf("said before the events were written: %q", log)
		}
		if dir.Settled(50 * time.Millisecond) {
			t.Error("said without the lock held: a reader would not have waited")
		}
	}); err != nil {
		t.Fatal(err)
	}
	if !said {
		t.Fatal("nothing said")
	}
	if !dir.Settled(time.Second) {
		t.Error("the lock is still held after the decision")
	}
}
