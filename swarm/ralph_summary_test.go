package swarm

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
)

func TestRalphSummaryOfARunningLoop(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("s", ralph.State{Status: ralph.StatusRunning, RunID: "r", CurrentIteration: 2, MaxIterations: 4,
		Started: time.Now().Add(-time.Minute).Format(ralph.TimeFormat)})
	cost := 0.25
	ld.AppendIteration(ralph.IterationRecord{RunID: "r", Iteration: 1, Commits: []string{"abcdef1234"}, Cost: &cost})
	if err := runRalphSummary(te.env, ralphSummaryOptions{Args: []string{"s"}, Format: "text"}); err != nil {
		t.Fatal(err)
	}
	out := te.output()
	for _, want := range []string{"# Loop summary: s\n", "- **Status:** running\n", "- **Iterations:** 2/4\n",
		"- **Cost:** $0.2500\n", "- abcdef1\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if err := runRalphSummary(te.env, ralphSummaryOptions{Args: []string{"s"}, Format: "json"}); err != nil {
		t.Fatal(err)
	}
	var s ralph.Summary
	if err := json.Unmarshal([]byte(te.output()), &s); err != nil || s.Iterations != 2 || *s.Cost != 0.25 || s.Commits[0] != "abcdef1234" {
		t.Errorf("json summary %+v, %v", s, err)
	}
	wantErr(t, runRalphSummary(te.env, ralphSummaryOptions{Args: []string{"nobody"}, Format: "text"}), 2, "no worker named 'nobody'")
	wantErr(t, ralphSummaryOptions{Args: []string{"s"}, Format: "yaml"}.check(), 1, "invalid --format 'yaml' (expected text or json)")
}

func TestRalphLogsPrintsIterationRecords(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("j", ralph.State{Status: ralph.StatusRunning})
	ld.AppendIteration(ralph.IterationRecord{RunID: "r", Iteration: 1, EndReason: "exit"})
	writeLog(t, ld.IterationsJSONL(), readFile(t, ld.IterationsJSONL())+`{"runId":"r","itera`)
	ld.AppendIteration(ralph.IterationRecord{RunID: "r", Iteration: 2, EndReason: "done"})
	if err := runRalphLogs(te.env, ralphLogsOptions{Args: []string{"j"}, Format: "json"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(te.output()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"iteration":1,`) || !strings.Contains(lines[1], `"endReason":"done"`) {
		t.Errorf("printed %q", lines)
	}
	if got := te.errText(); got != "swarm: warning: skipped a torn line in iterations.jsonl\n" {
		t.Errorf("stderr %q", got)
	}
	wantErr(t, ralphLogsOptions{Args: []string{"j"}, Format: "json", Monitor: true}.check(), 1, "the monitor log is text only")
}

func TestProgressLine(t *testing.T) {
	now := time.Now()
	st := &ralph.State{Agent: "claude", CurrentIteration: 3, MaxIterations: 20, Status: ralph.StatusRunning,
		Started: now.Add(-135 * time.Second).Format(ralph.TimeFormat)}
	if got := progressText(st, nil, now); got != "[Agent: claude] Iteration 3/20 | 2m 15s" {
		t.Errorf("progress %q", got)
	}
	cost := 0.0342
	st.Status = ralph.StatusPaused
	if got := progressText(st, &cost, now); got != "[Agent: claude] Iteration 3/20 | 2m 15s | $0.0342 | paused" {
		t.Errorf("progress %q", got)
	}
	// The loop's lines go above the progress line, which is drawn again under them.
	var out bytes.Buffer
	p := &progressLine{out: &out, line: "[Agent: x] Iteration 1/2 | 1s"}
	p.Write([]byte("[ralph] w: starting iteration 2/2\n"))
	if got := out.String(); got != "\r\x1b[K[ralph] w: starting iteration 2/2\n[Agent: x] Iteration 1/2 | 1s" {
		t.Errorf("wrote %q", got)
	}
	if newProgressLine(&out, ralph.Dir{}) != nil {
		t.Error("a progress line on something that is not a terminal")
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestWaitingStatus(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.Local)
	st := &ralph.State{Status: ralph.StatusWaiting, WaitingUntil: now.Add(73 * time.Minute).Format(ralph.TimeFormat),
		WaitingReset: now.Add(72 * time.Minute).Format(ralph.TimeFormat), WaitingFor: "You've hit your session limit · resets 11:12am"}
	var out bytes.Buffer
	printWaiting(&out, st, now)
	want := "Waiting: usage limit, resets " + now.Add(72*time.Minute).Format("2006-01-02 15:04 MST") + " (in 1h 12m)\n" +
		"Limit: You've hit your session limit · resets 11:12am\n"
	if out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
	st.WaitingReset = ""
	out.Reset()
	printWaiting(&out, st, now)
	if !strings.HasPrefix(out.String(), "Waiting: usage limit, reset time not known; trying again ") || !strings.Contains(out.String(), "(in 1h 13m)") {
		t.Errorf("printed %q", out.String())
	}
}
