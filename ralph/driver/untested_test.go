package driver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/ralph/testrun"
)

// A loop stopped while its tests, checkers or hooks run ends them at once, with everything
// they started, and what they would have said counts for nothing: not tested.

// longStep is a shell command that notes its process group in pgFile, starts a child that
// outlives nothing, and would run for half a minute.
func longStep(pgFile string) string {
	return "echo $$ > " + pgFile + "; sleep 30 & sleep 30"
}

// cancelOnceStarted cancels once the step noted its process group in pgFile.
func cancelOnceStarted(t *testing.T, pgFile string, cancel context.CancelFunc) {
	t.Helper()
	go func() {
		defer cancel()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if data, err := os.ReadFile(pgFile); err == nil && strings.HasSuffix(string(data), "\n") {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Errorf("the step never noted its process group in %s", pgFile)
	}()
}

// wantGroupGone fails unless the process group noted in pgFile is gone (within moments: the
// orphaned child is reaped by whoever adopted it).
func wantGroupGone(t *testing.T, pgFile string) {
	t.Helper()
	data, err := os.ReadFile(pgFile)
	if err != nil {
		t.Fatal(err)
	}
	pgid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pgid <= 1 {
		t.Fatalf("process group %q: %v", data, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(-pgid, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			t.Fatalf("process group %d still has processes", pgid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// wantPrompt fails when a cut-short step took longer than moments to return.
func wantPrompt(t *testing.T, start time.Time) {
	t.Helper()
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("returned %v after it started; a stop must end the step at once", took)
	}
}

func TestTestsCutShortAreNotTested(t *testing.T) {
	dir := t.TempDir()
	pgFile := filepath.Join(dir, "pgid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelOnceStarted(t, pgFile, cancel)
	start := time.Now()
	res := runTests(ctx, dir, longStep(pgFile), time.Minute)
	wantPrompt(t, start)
	if res.Outcome != testrun.CutShort {
		t.Errorf("runTests = %+v, want only cut short", res)
	}
	wantGroupGone(t, pgFile)

	// A stop that came first starts nothing.
	marker := filepath.Join(dir, "ran")
	if res := runTests(ctx, dir, "touch "+marker, time.Minute); res.Outcome != testrun.CutShort {
		t.Errorf("runTests after the stop = %+v, want cut short", res)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the test command ran after the stop (%v)", err)
	}
	// The test command's own time limit is still a failure of its own, not a stop.
	if res := runTests(context.Background(), dir, "sleep 5", 100*time.Millisecond); res.Outcome != testrun.TimedOut ||
		res.Err().Error() != "tests timed out after 100ms" {
		t.Errorf("timed out: %+v", res)
	}
}

func TestBaselineCutShortIsNotTested(t *testing.T) {
	dir := t.TempDir()
	pre := supervisionRepo(t, dir, "ok\n")
	pgFile := filepath.Join(t.TempDir(), "pgid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelOnceStarted(t, pgFile, cancel)
	start := time.Now()
	failed, err := testsFailedAt(ctx, dir, pre, longStep(pgFile), time.Minute)
	wantPrompt(t, start)
	if failed || !errors.Is(err, errTestsCutShort) {
		t.Errorf("testsFailedAt = %v, %v; want not failed, %v", failed, err, errTestsCutShort)
	}
	wantGroupGone(t, pgFile)
}

func TestChecksCutShortSayNothing(t *testing.T) {
	dir := t.TempDir()
	pgFile := filepath.Join(dir, "pgid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelOnceStarted(t, pgFile, cancel)
	checks := []config.Check{
		{Spec: "file:pgid", Kind: config.CheckFile, Arg: "pgid"},
		{Spec: "command:long", Kind: config.CheckCommand, Arg: longStep(pgFile)},
		{Spec: "command:true", Kind: config.CheckCommand, Arg: "touch after"},
	}
	start := time.Now()
	results, cutShort := RunChecks(ctx, checks, CheckContext{WorkDir: dir, Timeout: time.Minute})
	wantPrompt(t, start)
	if !cutShort || len(results) != 1 || results[0].Name != "file:pgid" {
		t.Errorf("RunChecks = %+v, cut short %v; want the answer before the stop only, cut short", results, cutShort)
	}
	if _, err := os.Stat(filepath.Join(dir, "after")); !os.IsNotExist(err) {
		t.Errorf("a checker ran after the stop (%v)", err)
	}
	wantGroupGone(t, pgFile)
}

func TestHooksCutShortEndTheRest(t *testing.T) {
	dir := t.TempDir()
	pgFile := filepath.Join(dir, "pgid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelOnceStarted(t, pgFile, cancel)
	hooks := []config.Hook{
		{Type: config.HookPostIteration, Command: longStep(pgFile)},
		{Type: config.HookPostIteration, Command: "touch after"},
	}
	start := time.Now()
	runs := RunHooks(ctx, hooks, config.HookPostIteration, HookContext{WorkDir: dir}, time.Minute, nil)
	wantPrompt(t, start)
	if len(runs) != 1 || !runs[0].CutShort || runs[0].TimedOut || !runs[0].Failed() {
		t.Fatalf("runs %+v; want the first, cut short", runs)
	}
	if got, want := runs[0].LogText(time.Minute), "post-iteration "+longStep(pgFile)+" ended: the loop is stopping"; got != want {
		t.Errorf("log text %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "after")); !os.IsNotExist(err) {
		t.Errorf("a hook ran after the stop (%v)", err)
	}
	wantGroupGone(t, pgFile)
}

// The gate keeps commits whose tests were cut short, and reverts nothing, whichever run it was.
func TestGateCutShortKeepsAndRevertsNothing(t *testing.T) {
	for name, f := range map[string]ralph.GateFacts{
		"tests":    {Configured: true, Commits: []string{"bbbbbbb"}, StartCommit: "aaaaaaa", Tested: true, CutShort: true},
		"baseline": {Configured: true, Commits: []string{"bbbbbbb"}, StartCommit: "aaaaaaa", Tested: true, BaselineTested: true, CutShort: true},
	} {
		step, d := ralph.Gate(f)
		if step != ralph.GateDone || d.Status != "" || d.Escalate != "" {
			t.Errorf("%s cut short: step %v, status %q, escalate %q; want done, nothing else", name, step, d.Status, d.Escalate)
		}
		if len(d.Lines) != 1 || !strings.Contains(d.Lines[0].Text, "not tested") {
			t.Errorf("%s cut short: lines %+v", name, d.Lines)
		}
	}
}

// An iteration whose tests or checkers were cut short is neither done nor failed.
func TestUntestedIterationIsNeitherDoneNorFailed(t *testing.T) {
	if step := ralph.NextEndStep(ralph.EndFacts{Signals: []string{ralph.SignalMarker}, Gate: true, Commits: true, Gated: true, Checks: 1,
		Untested: true}); step != ralph.EndDecide {
		t.Errorf("after a cut-short gate the next step is %v, want decide: no checkers", step)
	}
	lim := ralph.Limits{MaxIterations: 5, Checks: 1, Supervision: ralph.DefaultSupervision()}
	for name, f := range map[string]ralph.RunFacts{
		"gate, marker without checkers": {Signals: []string{ralph.SignalMarker}, Untested: true},
		"checkers, DONE file":           {Signals: []string{ralph.SignalFile}, Verdict: ralph.Verdict{Ran: true, Untested: true}, Untested: true},
		"checkers, last iteration":      {Signals: []string{ralph.SignalExitCode}, Verdict: ralph.Verdict{Ran: true, Untested: true}, Untested: true},
	} {
		f.Counters = ralph.Counters{Iteration: 3, ConsecutiveFailures: 1, TotalFailures: 2}
		f.Ending, f.ExitCode, f.Running = ralph.EndExited, ptr(0), true
		f.Markers = ralph.Markers{DoneFile: f.Signals[0] == ralph.SignalFile}
		l := lim
		if name == "gate, marker without checkers" {
			l.Checks = 0
		}
		if name == "checkers, last iteration" {
			f.Iteration = 5
		}
		d := ralph.AfterRun(f, l)
		if d.Ended || d.Status != "" || d.ExitReason != "" || d.RemoveDoneFile || d.SetCounters || d.Backoff != 0 {
			t.Errorf("%s: %+v; want the iteration over and nothing judged", name, d)
		}
	}
	if v := (ralph.Verdict{Ran: true, Untested: true, Results: []ralph.CheckResult{{Name: "file:x", Passed: true}}}); v.Passed() {
		t.Error("checkers cut short passed")
	}
	d := ralph.DoneFileChecked(2, ralph.Verdict{Ran: true, Untested: true})
	if d.Ended || d.RemoveDoneFile || d.Status != "" {
		t.Errorf("a DONE file whose checkers were cut short: %+v; want it kept, the loop not ended", d)
	}
}

// Stopping a loop while the test gate runs its tests ends them at once; the iteration's
// commits stay (the suite would fail: without the stop they would be reverted) and the loop
// is paused, not complete.
func TestStopDuringTheTestGateRevertsNothing(t *testing.T) {
	pgFile := filepath.Join(t.TempDir(), "pgid")
	var made string
	h, dir, _ := supervisionGated(t, "grep -qx ok status.txt || { "+longStep(pgFile)+"; }", "ok\n", func(dir string) (err error) {
		made, err = supervisionCommit(dir, "break the suite", map[string]string{"status.txt": "broken\n"})
		return err
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelOnceStarted(t, pgFile, cancel)
	cfg := h.config()
	cfg.Context = ctx
	start := time.Now()
	h.run(cfg)
	wantPrompt(t, start)
	wantGroupGone(t, pgFile)
	if head := git.Head(dir); head != made {
		t.Errorf("HEAD %s, want the untested commit %s kept", head, made)
	}
	wantSupervisionLines(h, "Tests cut short: the loop is stopping — commit "+ralph.ShortCommit(made)+" kept, not tested")
	st := h.state()
	if st.Status != ralph.StatusPaused || st.ExitReason == "complete" {
		t.Errorf("status %s (%s), want paused by the stop", st.Status, st.ExitReason)
	}
	if rs := h.dir.LoadSupervision(); rs.Rollbacks != 0 {
		t.Errorf("%d rollbacks, want none", rs.Rollbacks)
	}
}
