package swarm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/internal/testmachine"
)

func TestRalphStatusText(t *testing.T) {
	te := newLoopEnv(t)
	started := time.Date(2026, 11, 21, 10, 30, 0, 0, time.UTC)
	code, pattern := 3, "ALL DONE"
	ld := te.loop("agent", ralph.State{Status: ralph.StatusRunning, MaxIterations: 20, CurrentIteration: 7,
		Started: started.Format(ralph.TimeFormat), LastIterationStarted: started.Add(2 * time.Hour).Format(ralph.TimeFormat),
		LastScreenChange: started.Add(3 * time.Hour).Format(ralph.TimeFormat), ConsecutiveFailures: 1, TotalFailures: 2,
		InactivityTimeout: 60, DonePattern: &pattern, LastExitCode: &code, BlockedBy: "trust-folder", ExitReason: "x",
		NeedsPersonSince: started.Add(3 * time.Hour).Format(ralph.TimeFormat)})
	if err := ld.UpdateSupervision(func(rs *ralph.SupervisionState) {
		rs.Resurrections, rs.Rollbacks, rs.LastCommit = 1, 2, "abc123"
		rs.LastOutputAt = started.Add(3 * time.Hour).Format(time.RFC3339)
	}); err != nil {
		t.Fatal(err)
	}
	if err := runRalphStatus(te.env, ralphStatusOptions{Args: []string{"agent"}, Format: "text"}); err != nil {
		t.Fatal(err)
	}
	local := func(d time.Duration) string { return started.Add(d).Local().Format("2006-01-02 15:04:05") }
	out := te.output()
	for _, want := range []string{
		"Ralph Loop: agent\nStatus: blocked (dialog: trust-folder)\nNeeds a person: dialog: trust-folder, since " + local(3*time.Hour) + " (",
		" ago)\nIteration: 7/20\n",
		"Started: " + local(0) + "\nCurrent iteration started: " + local(2*time.Hour) + "\n",
		"Consecutive failures: 1\nTotal failures: 2\nInactivity timeout: 60s\nDone pattern: ALL DONE\n",
		"Built-in markers: <promise>COMPLETE</promise>, RALPH_STATUS: COMPLETE\nStagnation: off\n",
		"Exit reason: x\nLast exit code: 3\nBlocked by: ",
		"Last screen change: " + local(3*time.Hour) + " (",
		"Worker: running\nSandbox: off\nRegent: on (max failures 5, hang timeout 300s)\nResurrections: 1\nRollbacks: 2\n",
		"Last output: " + local(3*time.Hour) + "\nLast commit: abc123\nMonitor: not running\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
}

func TestRalphStatusShowsTimesInTheLocalZone(t *testing.T) {
	saved := time.Local
	time.Local = time.FixedZone("EAST", 5*3600)
	t.Cleanup(func() { time.Local = saved })
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	var b strings.Builder
	st := &ralph.State{WorkerName: "w", Started: at.Format(ralph.TimeFormat), LastScreenChange: at.Format(ralph.TimeFormat)}
	printLoopStatus(&b, loopView{State: st, WorkerStatus: "gone", RegentState: &ralph.SupervisionState{}}, at.Add(90*time.Second))
	for _, want := range []string{"Started: 2026-11-21 15:00:00\n", "Last screen change: 2026-11-21 15:00:00 (1m ago)\n",
		"Done pattern: (none)\n", "Worker: gone\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, b.String())
		}
	}
}

func TestRalphStatusRegentSettings(t *testing.T) {
	var b strings.Builder
	printRegentStatus(&b, ralph.SupervisionConfig{Enabled: false}, &ralph.SupervisionState{})
	if b.String() != "Regent: off\n" {
		t.Errorf("got %q", b.String())
	}
	got := regentSettings(ralph.SupervisionConfig{Enabled: true, MaxFailures: 2, IterationTimeout: 9, TestCommand: "make test",
		RollbackOnTestFailure: true, Webhook: "http://x"})
	want := "max failures 2, iteration timeout 9s, tests: make test (rollback on failure), webhook set"
	if strings.Join(got, ", ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, ", "), want)
	}
}

func TestRalphStatusJSON(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("j", ralph.State{Status: ralph.StatusPaused, CurrentIteration: 2})
	release := testmachine.HoldMonitor(t, ld)
	if err := runRalphStatus(te.env, ralphStatusOptions{Args: []string{"j"}, Format: "json"}); err != nil {
		t.Fatal(err)
	}
	release()
	var v map[string]any
	if err := json.Unmarshal([]byte(te.output()), &v); err != nil {
		t.Fatal(err)
	}
	if v["worker_name"] != "j" || v["status"] != "paused" || v["monitor_alive"] != true || v["worker_status"] != "running" || v["regent_state"] == nil {
		t.Errorf("json %v", v)
	}
}

func TestRalphStatusErrors(t *testing.T) {
	te := newLoopEnv(t)
	te.spawn("plain", "")
	wantErr(t, runRalphStatus(te.env, ralphStatusOptions{Args: []string{"plain"}}), 1, "worker 'plain' is not a ralph worker")
	wantErr(t, runRalphStatus(te.env, ralphStatusOptions{Args: []string{"ghost"}}), 2, "no worker named 'ghost'")
	wantErr(t, ralphStatusOptions{}.check(), 1, "usage: swarm ralph status NAME")
	wantErr(t, ralphStatusOptions{Args: []string{"a"}, Format: "xml"}.check(), 1, "invalid --format 'xml'")
}

func TestRalphStatusOfACorruptLoop(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("c", ralph.State{Status: ralph.StatusRunning})
	path := filepath.Join(ld.Path, "state.json")
	if err := os.WriteFile(path, []byte("{garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The first reader moves the file aside; every later one finds only the copy.
	for i := 0; i < 2; i++ {
		err := runRalphStatus(te.env, ralphStatusOptions{Args: []string{"c"}, Format: "text"})
		wantErr(t, err, 1, "loop state "+path+" is corrupt (kept as state.json.corrupt-")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the corrupt file is still in place: %v", err)
	}
	if !hasLoop(ld) || keptCopy(ld) == "" {
		t.Error("a damaged loop no longer counts as one")
	}
}

// The last failure, with the agent's last lines indented under it and made safe to show.
func TestRalphStatusLastFailure(t *testing.T) {
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	var b strings.Builder
	printLastFailure(&b, &ralph.Failure{Iteration: 3, Exit: "1", At: at.Format(ralph.TimeFormat),
		Lines: []string{"● trying", "Invalid API key \x1b[31m· Please run /login"}}, at.Add(5*time.Minute))
	want := "Last failure: iteration 3 (exit: 1), " + at.Local().Format("2006-01-02 15:04:05") + " (5m ago)\n" +
		"    ● trying\n    Invalid API key · Please run /login\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	printLastFailure(&b, &ralph.Failure{Iteration: 1, Exit: "hung"}, at)
	if b.String() != "Last failure: iteration 1 (exit: hung)\n    (nothing on the agent's screen)\n" {
		t.Errorf("a failure with nothing on screen: %q", b.String())
	}
	b.Reset()
	printLastFailure(&b, nil, at)
	if b.String() != "" {
		t.Errorf("no failure: %q", b.String())
	}
}
