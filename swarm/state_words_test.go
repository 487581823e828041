package swarm

import (
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// One transition per row: a worker's status and exit code, its loop's state, the words.
func TestStateWords(t *testing.T) {
	code := func(n int) *int { return &n }
	loop := func(s ralph.Status, reason string) *ralph.State { return &ralph.State{Status: s, ExitReason: reason} }
	for _, c := range []struct {
		name   string
		status string
		exit   *int
		loop   *ralph.State
		want   string
	}{
		{"a process that runs", state.StatusRunning, nil, nil, "running"},
		{"a process that exited 4", state.StatusStopped, code(4), nil, "stopped (exit 4)"},
		{"a process that exited 0", state.StatusStopped, code(0), nil, "stopped (exit 0)"},
		{"a process whose exit code is unknown", state.StatusStopped, nil, nil, "stopped"},
		{"an orphaned worker", state.StatusOrphaned, nil, nil, "orphaned"},
		{"an orphaned loop worker", state.StatusOrphaned, nil, loop(ralph.StatusRunning, ""), "orphaned"},
		{"no record", "", nil, nil, "gone"},
		{"a loop that runs", state.StatusRunning, nil, loop(ralph.StatusRunning, ""), "running"},
		{"a loop on record as running, its worker ended", state.StatusStopped, code(143), loop(ralph.StatusRunning, ""), "stopped"},
		{"a loop paused, agent ended by swarm", state.StatusStopped, code(143), loop(ralph.StatusPaused, "signal"), "paused"},
		{"a loop paused, its iteration under way", state.StatusRunning, nil, loop(ralph.StatusPaused, "paused"), "paused (finishing iteration)"},
		{"a loop parked on a limit", state.StatusStopped, code(143), loop(ralph.StatusWaiting, ""), "waiting"},
		{"a loop whose next agent waits for a silent tmux server", state.StatusStopped, code(0),
			&ralph.State{Status: ralph.StatusRunning, TmuxSilentSince: "2026-11-25T02:00:00.000000Z"}, "waiting (tmux server not answering)"},
		{"a loop paused while it waited for a silent tmux server", state.StatusStopped, code(0),
			&ralph.State{Status: ralph.StatusPaused, TmuxSilentSince: "2026-11-25T02:00:00.000000Z"}, "paused"},
		{"a loop done by its pattern", state.StatusStopped, code(143), loop(ralph.StatusStopped, "done_pattern"), "done"},
		{"a loop done by its DONE file", state.StatusStopped, code(0), loop(ralph.StatusStopped, "done_file"), "done"},
		{"a loop whose checks passed", state.StatusStopped, code(0), loop(ralph.StatusStopped, "complete"), "done"},
		{"a loop ended by swarm kill", state.StatusStopped, code(143), loop(ralph.StatusStopped, "killed"), "killed"},
		{"a loop out of iterations", state.StatusStopped, code(0), loop(ralph.StatusStopped, "max_iterations"), "stopped (max_iterations)"},
		{"a stagnated loop", state.StatusStopped, code(143), loop(ralph.StatusStopped, "stagnated"), "stopped (stagnated)"},
		{"a loop the Python tool stopped", state.StatusStopped, nil, loop(ralph.StatusStopped, ""), "stopped"},
		{"a failed loop", state.StatusStopped, code(3), loop(ralph.StatusFailed, "consecutive_failures"), "failed (consecutive_failures)"},
		{"a loop whose worker was cleaned", "", nil, loop(ralph.StatusStopped, "done_file"), "done"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := stateOf(c.status, c.exit, c.loop).String(); got != c.want {
				t.Errorf("stateOf(%q, %v, %+v) = %q, want %q", c.status, c.exit, c.loop, got, c.want)
			}
		})
	}
}

func TestStateWordsInASentence(t *testing.T) {
	for _, c := range []struct {
		sw   stateWord
		want string
		end  bool
	}{
		{stateWord{word: wordDone}, "loop done", true},
		{stateWord{word: wordStopped, detail: "max_iterations"}, "loop stopped: max_iterations", true},
		{stateWord{word: wordKilled}, "loop killed", true},
		{stateWord{word: wordFailed, detail: "consecutive_failures"}, "loop failed: consecutive_failures", true},
		{stateWord{word: wordPaused}, "loop paused", false},
		{stateWord{word: wordWaiting}, "loop waiting", false},
	} {
		if got := c.sw.inWords(); got != c.want || c.sw.ended() != c.end {
			t.Errorf("%+v: %q ended %v, want %q ended %v", c.sw, got, c.sw.ended(), c.want, c.end)
		}
	}
}

// status keeps saying where a worker ran and for how long once it has ended.
func TestStatusLine(t *testing.T) {
	now := time.Date(2026, 11, 25, 14, 0, 0, 0, time.UTC)
	started := now.Add(-7 * time.Minute)
	zero := 0
	proc := &state.Worker{Name: "w", Status: state.StatusStopped, PID: 99999, Started: started, ExitCode: &zero}
	win := &state.Worker{Name: "l", Status: state.StatusRunning, PID: 5, Started: started, Tmux: &state.TmuxInfo{Session: "swarm", Window: "l"}}
	cloned := &state.Worker{Name: "c", Status: state.StatusRunning, PID: 6, Started: started,
		Worktree: &state.WorktreeInfo{Path: "/r-worktrees/c", Branch: "c", BaseRepo: "/r", Clone: true}}
	for _, c := range []struct {
		w     *state.Worker
		sw    stateWord
		ended time.Time
		want  string
	}{
		{proc, stateOf(proc.Status, proc.ExitCode, nil), now.Add(-2 * time.Minute), "w: stopped (exit 0, pid 99999, ran 5m)"},
		{proc, stateOf(proc.Status, proc.ExitCode, nil), time.Time{}, "w: stopped (exit 0, pid 99999)"},
		{win, stateWord{word: wordRunning}, time.Time{}, "l: running (tmux window swarm:l, uptime 7m)"},
		{win, stateWord{word: wordPaused, detail: "finishing iteration"}, time.Time{}, "l: paused (finishing iteration, tmux window swarm:l, uptime 7m)"},
		{cloned, stateWord{word: wordRunning}, time.Time{}, "c: running (pid 6, cloned worktree /r-worktrees/c, uptime 7m)"},
	} {
		if got := statusLine(c.w, c.sw, c.ended, now); got != c.want {
			t.Errorf("statusLine = %q, want %q", got, c.want)
		}
	}
}

// A loop that needs a person says so, in every view: one situation per row.
func TestStateWordsOfALoopThatNeedsAPerson(t *testing.T) {
	code := 143
	blocked := func(s ralph.Status, mod func(*ralph.State)) *ralph.State {
		st := &ralph.State{Status: s, ExitReason: "consecutive_failures"}
		if s == ralph.StatusRunning || s == ralph.StatusPaused {
			st.ExitReason = ""
		}
		mod(st)
		return st
	}
	dialog := func(st *ralph.State) { st.BlockedBy = "trust-folder" }
	permission := func(st *ralph.State) { st.NeedsPermission = "Claude needs your permission to use Bash(rm -rf build)" }
	unknown := func(st *ralph.State) { st.UnknownScreen = "/s/unknown-iteration-1.txt" }
	for _, c := range []struct {
		name   string
		status string
		exit   *int
		loop   *ralph.State
		want   string
	}{
		{"at a dialog", state.StatusRunning, nil, blocked(ralph.StatusRunning, dialog), "blocked (dialog: trust-folder)"},
		{"asking permission", state.StatusRunning, nil, blocked(ralph.StatusRunning, permission), "blocked (permission: Bash(rm -rf build))"},
		{"on an unknown screen", state.StatusRunning, nil, blocked(ralph.StatusRunning, unknown), "blocked (unknown screen)"},
		{"a permission asked in other words", state.StatusRunning, nil, blocked(ralph.StatusRunning, func(st *ralph.State) { st.NeedsPermission = "Allow shell?" }), "blocked (permission: Allow shell?)"},
		{"paused while it asks", state.StatusRunning, nil, blocked(ralph.StatusPaused, permission), "paused (finishing iteration)"},
		{"failed at a dialog", state.StatusStopped, &code, blocked(ralph.StatusFailed, dialog), "failed (consecutive_failures)"},
		{"on record at a dialog, its worker ended", state.StatusStopped, &code, blocked(ralph.StatusRunning, dialog), "stopped"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := stateOf(c.status, c.exit, c.loop).String(); got != c.want {
				t.Errorf("stateOf = %q, want %q", got, c.want)
			}
		})
	}
}

// The need as scripts poll it: what, and since when as recorded; nothing for a loop that needs
// nobody or does not run.
func TestNeedOf(t *testing.T) {
	since := time.Date(2026, 11, 25, 2, 0, 0, 0, time.UTC)
	running := func(mod func(*ralph.State)) *ralph.State {
		st := &ralph.State{Status: ralph.StatusRunning}
		mod(st)
		return st
	}
	for _, c := range []struct {
		name   string
		status string
		loop   *ralph.State
		want   *needJSON
	}{
		{"a dialog, since when recorded", state.StatusRunning, running(func(st *ralph.State) {
			st.BlockedBy, st.NeedsPersonSince = "trust-folder", since.Format(ralph.TimeFormat)
		}), &needJSON{What: "dialog: trust-folder", Since: "2026-11-25T02:00:00Z"}},
		{"a need not stamped (an older swarm)", state.StatusRunning, running(func(st *ralph.State) { st.BlockedBy = "theme" }),
			&needJSON{What: "dialog: theme"}},
		{"the agent's words, made safe and short", state.StatusRunning, running(func(st *ralph.State) {
			st.NeedsPermission = "use \x1b[31mBash(" + strings.Repeat("x", 100) + ")"
		}), &needJSON{What: "permission: use Bash(" + strings.Repeat("x", 50) + "…"}},
		{"nothing needed", state.StatusRunning, running(func(*ralph.State) {}), nil},
		{"a worker that ended", state.StatusStopped, running(func(st *ralph.State) { st.BlockedBy = "theme" }), nil},
		{"a paused loop", state.StatusRunning, &ralph.State{Status: ralph.StatusPaused, BlockedBy: "theme"}, nil},
		{"no loop", state.StatusRunning, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := needOf(c.status, c.loop)
			if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
				t.Errorf("needOf = %+v, want %+v", got, c.want)
			}
		})
	}
}
