package driver

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
)

func TestOutcomeOfAFinishedLoop(t *testing.T) {
	cases := []struct {
		st   ralph.State
		want ralph.Outcome
		hook string
	}{
		{ralph.State{Status: ralph.StatusStopped, ExitReason: "complete", Checks: []string{"exit-code"}}, ralph.OutcomeComplete, config.HookOnComplete},
		{ralph.State{Status: ralph.StatusStopped, ExitReason: "done_pattern"}, ralph.OutcomeComplete, config.HookOnComplete},
		{ralph.State{Status: ralph.StatusStopped, ExitReason: "done_file"}, ralph.OutcomeComplete, config.HookOnComplete},
		{ralph.State{Status: ralph.StatusStopped, ExitReason: "max_iterations"}, ralph.OutcomeComplete, config.HookOnComplete},
		{ralph.State{Status: ralph.StatusStopped, ExitReason: "max_iterations", Checks: []string{"exit-code"}}, ralph.OutcomeFailure, config.HookOnFailure},
		{ralph.State{Status: ralph.StatusFailed, ExitReason: "consecutive_failures"}, ralph.OutcomeFailure, config.HookOnFailure},
		{ralph.State{Status: ralph.StatusStopped, ExitReason: "stagnated"}, ralph.OutcomeStagnated, config.HookOnStagnation},
		{ralph.State{Status: ralph.StatusStopped, ExitReason: "killed"}, ralph.OutcomeOther, ""},
		{ralph.State{Status: ralph.StatusStopped, ExitReason: "wait_without_restart"}, ralph.OutcomeOther, ""},
		{ralph.State{Status: ralph.StatusPaused, ExitReason: "signal"}, ralph.OutcomeOther, ""},
	}
	for _, c := range cases {
		o := ralph.OutcomeOf(&c.st)
		if o != c.want || o.FinalHook() != c.hook {
			t.Errorf("%s/%s checks=%d: outcome %d hook %q; want %d %q", c.st.Status, c.st.ExitReason,
				len(c.st.Checks), o, o.FinalHook(), c.want, c.hook)
		}
	}
}

func TestHooksRunInOrderWithTheirContext(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	hooks := []config.Hook{
		{Type: config.HookPostIteration, Command: "echo first $RALPH_ITERATION >> log"},
		{Type: config.HookPreIteration, Command: "echo never >> log"},
		{Type: config.HookPostIteration, Command: "exit 3"},
		{Type: config.HookPostIteration, Command: "echo third $RALPH_AGENT $RALPH_MAX_ITERATIONS $RALPH_EXIT_CODE $RALPH_STATUS $SWARM_WORKER $RALPH_WORK_DIR $(pwd) >> log"},
	}
	var out bytes.Buffer
	ctx := HookContext{Agent: "claude", Iteration: 4, MaxIterations: 9, ExitCode: code(0), Status: ralph.StatusRunning, WorkDir: dir, Worker: "w1"}
	runs := RunHooks(context.Background(), hooks, config.HookPostIteration, ctx, time.Minute, &out)
	if len(runs) != 3 || runs[0].Failed() || !runs[1].Failed() || runs[2].Failed() {
		t.Fatalf("runs %+v", runs)
	}
	if got := runs[1].LogText(time.Minute); got != "post-iteration exit 3 exit=3" {
		t.Errorf("log text %q", got)
	}
	data, _ := os.ReadFile(log)
	want := "first 4\nthird claude 9 0 running w1 " + dir + " " + dir + "\n"
	if string(data) != want {
		t.Errorf("hooks wrote %q, want %q", data, want)
	}
}

func TestAHungHookIsEnded(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	runs := RunHooks(context.Background(), []config.Hook{{Type: config.HookOnComplete, Command: "sleep 30 & sleep 30"}}, config.HookOnComplete, HookContext{WorkDir: dir}, 300*time.Millisecond, nil)
	if len(runs) != 1 || !runs[0].TimedOut || !runs[0].Failed() {
		t.Fatalf("runs %+v", runs)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("took %v: the hook's children held it", time.Since(start))
	}
	if got := runs[0].LogText(300 * time.Millisecond); got != "on-complete sleep 30 & sleep 30 timed out after 300ms, ended" {
		t.Errorf("log text %q", got)
	}
}
