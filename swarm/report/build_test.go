package report

import (
	"reflect"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/cost"
	"github.com/swarm-dev/swarm/swarm/land"
)

var night = Window{Since: time.Date(2024, 5, 1, 18, 0, 0, 0, time.UTC), Now: time.Date(2024, 5, 2, 9, 0, 0, 0, time.UTC)}

// at is a time of the night, h hours after the window's start, as records store it.
func at(h float64) string {
	return night.Since.Add(time.Duration(h * float64(time.Hour))).Format(time.RFC3339Nano)
}

func code(n int) *int { return &n }

func usd(v float64) *float64 { return &v }

// rec is an iteration that ran the hour before end (h hours into the night).
func rec(n int, end float64, reason string) ralph.IterationRecord {
	return ralph.IterationRecord{Iteration: n, StartedAt: at(end - 1), EndedAt: at(end), DurationMs: 3600_000, EndReason: reason}
}

func loop(status ralph.Status, reason string) *ralph.State {
	return &ralph.State{Status: status, ExitReason: reason, Phase: ralph.PhaseEnded, Started: at(0)}
}

func TestOutcomeOfEveryEnding(t *testing.T) {
	failing := []ralph.CheckResult{{Name: "command:make test", Passed: false, Message: "exit 2"}}
	passing := []ralph.CheckResult{{Name: "command:make test", Passed: true, Message: "exit 0"}}
	for _, c := range []struct {
		name            string
		r               ralph.IterationRecord
		outcome, reason string
	}{
		{"a believed done marker", ralph.IterationRecord{EndReason: "done"}, OutcomeDone, ""},
		{"the DONE file", ralph.IterationRecord{EndReason: "done_file"}, OutcomeDone, ""},
		{"a claim the checkers passed", ralph.IterationRecord{EndReason: "exit", ExitCode: code(0), Checks: passing}, OutcomeDone, ""},
		{"a claim the checkers refuted", ralph.IterationRecord{EndReason: "done", Checks: failing}, OutcomeChecksFailed, "command:make test: exit 2"},
		{"commits the test gate reverted", ralph.IterationRecord{EndReason: "done", RolledBack: true, Commits: []string{"a", "b"}}, OutcomeRolledBack, "2 commits reverted: the tests failed"},
		{"an exit 0", ralph.IterationRecord{EndReason: "exit", ExitCode: code(0)}, OutcomeEnded, "exit 0"},
		{"an exit 1", ralph.IterationRecord{EndReason: "exit", ExitCode: code(1)}, OutcomeFailed, "exit 1"},
		{"an exit not known", ralph.IterationRecord{EndReason: "exit"}, OutcomeFailed, "exit code unknown"},
		{"an API error", ralph.IterationRecord{EndReason: "api_error", Error: "API Error: 529 overloaded"}, OutcomeFailed, "API Error: 529 overloaded"},
		{"a hang", ralph.IterationRecord{EndReason: "hang"}, OutcomeHung, ""},
		{"an iteration timeout", ralph.IterationRecord{EndReason: "iteration_timeout"}, OutcomeTimedOut, "iteration timeout"},
		{"a ready timeout", ralph.IterationRecord{EndReason: "ready_timeout"}, OutcomeTimedOut, "never ready for its prompt"},
		{"a usage limit", ralph.IterationRecord{EndReason: "usage_limit", Error: "5-hour limit reached"}, OutcomeUsageLimit, "5-hour limit reached"},
		{"the budget", ralph.IterationRecord{EndReason: "budget_exceeded"}, OutcomeBudget, ""},
		{"a stop", ralph.IterationRecord{EndReason: "stopped"}, OutcomeStopped, ""},
		{"quiet", ralph.IterationRecord{EndReason: "inactivity"}, OutcomeEnded, "quiet"},
		{"a turn's end", ralph.IterationRecord{EndReason: "turn_end"}, OutcomeEnded, "turn ended"},
		{"a full context", ralph.IterationRecord{EndReason: "context_limit"}, OutcomeEnded, "context full"},
		{"an ending of a newer swarm", ralph.IterationRecord{EndReason: "teleported"}, OutcomeEnded, "teleported"},
	} {
		if o, r := outcomeOf(c.r); o != c.outcome || r != c.reason {
			t.Errorf("%s: %q, %q; want %q, %q", c.name, o, r, c.outcome, c.reason)
		}
	}
}

func TestOnlyIterationsThatEndedInTheWindowCount(t *testing.T) {
	f := Facts{Name: "w1", State: "done", Loop: loop(ralph.StatusStopped, "done_pattern"), Records: []ralph.IterationRecord{
		rec(1, -2, "exit"), // the evening before: not this night's
		rec(2, 0.5, "exit"),
		rec(3, 3, "done"),
	}}
	f.Records[0].ExitCode, f.Records[1].ExitCode = code(1), code(1)
	ws := Build([]Facts{f}, night)
	if len(ws) != 1 {
		t.Fatalf("%d workers, want 1", len(ws))
	}
	w := ws[0]
	if got := []int{w.Iterations[0].N, w.Iterations[1].N}; len(w.Iterations) != 2 || !reflect.DeepEqual(got, []int{2, 3}) {
		t.Fatalf("iterations %+v, want 2 and 3", w.Iterations)
	}
	want := Outcomes{Total: 2, Done: 1, Failed: 1}
	if w.Outcomes != want {
		t.Errorf("outcomes %+v, want %+v", w.Outcomes, want)
	}
	if !reflect.DeepEqual(w.Failures, []Reason{{Outcome: OutcomeFailed, Reason: "exit 1", Count: 1}}) {
		t.Errorf("failures %+v", w.Failures)
	}
	// An iteration counts whole, even the one that began before the window.
	if w.Time.WorkingS != 2*3600 {
		t.Errorf("worked %ds, want two hours", w.Time.WorkingS)
	}
}

func TestAWorkerWithNothingInTheWindowIsLeftOut(t *testing.T) {
	old := Facts{Name: "old", State: "done", Loop: loop(ralph.StatusStopped, "complete"), Records: []ralph.IterationRecord{rec(1, -5, "done")}}
	old.Loop.Started, old.Loop.Ended = at(-6), at(-5)
	plain := Facts{Name: "plain", State: "stopped", Started: night.Since.Add(-time.Hour)}
	running := Facts{Name: "busy", State: "running", Running: true, Started: night.Since.Add(-48 * time.Hour)}
	ws := Build([]Facts{old, plain, running}, night)
	if len(ws) != 1 || ws[0].Name != "busy" {
		t.Fatalf("workers %+v, want only the one running now", ws)
	}
	if ws[0].Loop || ws[0].Iterations == nil {
		t.Errorf("a plain worker: loop %v, iterations %v (want false and an empty list)", ws[0].Loop, ws[0].Iterations)
	}
}

func TestWaitsRecordedAndUnderWay(t *testing.T) {
	r := rec(2, 2, "exit")
	r.ExitCode, r.DurationMs = code(0), 600_000
	r.Waited = &ralph.Waits{BackoffMs: 4_000, PersonMs: 120_400}
	st := loop(ralph.StatusWaiting, "")
	st.Phase = ralph.PhaseWaiting
	st.Waited = &ralph.Waits{BackoffMs: 1_000} // waited since the last record, not yet in one
	w := Build([]Facts{{Name: "w", Loop: st, Records: []ralph.IterationRecord{r}}}, night)[0]
	// The usage limit has been waited for since the last iteration ended, until now.
	want := Time{WorkingS: 600 - 120, Waiting: Waits{BackoffS: 5, PersonS: 120, UsageLimitS: 13 * 3600}}
	if w.Time != want {
		t.Errorf("time %+v, want %+v", w.Time, want)
	}
}

func TestTheIterationUnderWayIsWorkLessItsWaitForAPerson(t *testing.T) {
	st := loop(ralph.StatusRunning, "")
	st.Phase, st.LastIterationStarted = ralph.PhaseWorking, at(14)
	st.NeedsPermission, st.PersonSince, st.NeedsPersonSince = "Bash(rm -rf build)", at(14.5), at(14.5)
	w := Build([]Facts{{Name: "w", State: "running", Loop: st}}, night)[0]
	if want := (Time{WorkingS: 1800, Waiting: Waits{PersonS: 1800}}); w.Time != want {
		t.Errorf("time %+v, want %+v", w.Time, want)
	}
	want := &NeedsPerson{Kind: "permission", What: "permission: Bash(rm -rf build)", Since: night.Since.Add(14*time.Hour + 30*time.Minute).Format(time.RFC3339)}
	if !reflect.DeepEqual(w.NeedsPerson, want) {
		t.Errorf("needs person %+v, want %+v", w.NeedsPerson, want)
	}
}

func TestABackoffUnderWayCountsFromTheLastIteration(t *testing.T) {
	st := loop(ralph.StatusRunning, "")
	st.Phase, st.BackoffUntil = ralph.PhaseBackoff, night.Now.Add(time.Minute).Format(time.RFC3339)
	r := rec(1, 15-1.0/60, "exit") // ended a minute before now
	r.ExitCode = code(1)
	w := Build([]Facts{{Name: "w", Loop: st, Records: []ralph.IterationRecord{r}}}, night)[0]
	if w.Time.Waiting.BackoffS != 60 {
		t.Errorf("backoff %ds, want the minute since the iteration failed", w.Time.Waiting.BackoffS)
	}
}

func TestAnEndedLoopNeedsNoOneAtItsDialog(t *testing.T) {
	st := loop(ralph.StatusFailed, "consecutive_failures")
	st.BlockedBy = "trust-folder"
	running := loop(ralph.StatusRunning, "")
	running.BlockedBy = "trust-folder"
	ws := Build([]Facts{{Name: "gone", Loop: st}, {Name: "now", Loop: running}}, night)
	if len(ws) != 2 || ws[0].NeedsPerson != nil {
		t.Fatalf("an ended loop needs a person: %+v", ws)
	}
	if np := ws[1].NeedsPerson; np == nil || np.Kind != "dialog" || np.What != "dialog: trust-folder" {
		t.Errorf("needs person %+v", np)
	}
}

func TestCostTokensChecksAndCommits(t *testing.T) {
	r1, r2, r3 := rec(1, 1, "done"), rec(2, 2, "done"), rec(3, 3, "done")
	r1.Cost, r1.Tokens, r1.Commits = usd(0.5), &cost.Usage{Input: 100, Output: 10}, []string{"a"}
	r2.Checks = []ralph.CheckResult{{Name: "file:notes.md", Passed: false, Message: "missing"}}
	r3.Cost, r3.Tokens, r3.Commits = usd(0.25), &cost.Usage{Input: 50, CacheRead: 7}, []string{"b", "c"}
	r3.Checks = []ralph.CheckResult{{Name: "file:notes.md", Passed: true, Message: "notes.md exists"}}
	w := Build([]Facts{{Name: "w", Loop: loop(ralph.StatusStopped, "complete"), Records: []ralph.IterationRecord{r1, r2, r3}}}, night)[0]
	if w.CostUSD == nil || *w.CostUSD != 0.75 || !reflect.DeepEqual(w.Tokens, &cost.Usage{Input: 150, Output: 10, CacheRead: 7}) {
		t.Errorf("cost %v, tokens %+v", w.CostUSD, w.Tokens)
	}
	if w.Commits != 3 {
		t.Errorf("commits %d, want 3", w.Commits)
	}
	want := Checks{Ran: 2, Passed: 1, Failed: 1, Last: []string{"file:notes.md: missing"}}
	if !reflect.DeepEqual(w.Checks, want) {
		t.Errorf("checks %+v, want %+v", w.Checks, want)
	}
	if w.Iterations[1].CostUSD != nil {
		t.Errorf("an iteration whose cost is not known costs %v", *w.Iterations[1].CostUSD)
	}
}

func TestALandingCountsWhenItMovedInTheWindow(t *testing.T) {
	sent := &land.Record{State: land.NeedsRebase, Target: "main", Reason: "conflicts with main in a.txt", ResumedLoop: at(2), Updated: at(2)}
	stale := &land.Record{State: land.Landed, Target: "main", Updated: at(-30)}
	ws := Build([]Facts{
		{Name: "a", Running: true, Landing: sent},
		{Name: "b", Running: true, Landing: stale},
	}, night)
	if l := ws[0].Landing; l == nil || !l.SentBack || l.Reason != sent.Reason {
		t.Errorf("landing %+v, want sent back with its reason", l)
	}
	if ws[1].Landing != nil {
		t.Errorf("a landing of two days ago in last night's report: %+v", ws[1].Landing)
	}
	tot := Sum(ws, []Host{{Name: "box", Answered: true}, {Name: "gone", Problem: "no answer"}})
	if tot.SentBack != 1 || tot.Landed != 0 || tot.Workers != 2 || tot.Unreachable != 1 {
		t.Errorf("totals %+v", tot)
	}
}

func TestReasonsMostFrequentFirst(t *testing.T) {
	its := []Iteration{{Outcome: OutcomeHung}, {Outcome: OutcomeFailed, Reason: "exit 1"}, {Outcome: OutcomeEnded},
		{Outcome: OutcomeFailed, Reason: "exit 1"}, {Outcome: OutcomeTimedOut, Reason: "iteration timeout"}}
	want := []Reason{{OutcomeFailed, "exit 1", 2}, {OutcomeHung, "", 1}, {OutcomeTimedOut, "iteration timeout", 1}}
	if got := reasons(its); !reflect.DeepEqual(got, want) {
		t.Errorf("reasons %+v, want %+v", got, want)
	}
}

func TestSumAddsUpTheWorkers(t *testing.T) {
	ws := []Worker{
		{Loop: true, Outcomes: Outcomes{Total: 3, Done: 1, Failed: 2}, CostUSD: usd(1), Commits: 2,
			Time: Time{WorkingS: 10, Waiting: Waits{BackoffS: 3}}, NeedsPerson: &NeedsPerson{Kind: "dialog"}},
		{Loop: true, Outcomes: Outcomes{Total: 1, Hung: 1}, CostUSD: usd(0.5), Tokens: &cost.Usage{Output: 5},
			Time: Time{WorkingS: 5, Waiting: Waits{UsageLimitS: 60}}, Landing: &Landing{State: land.Landed}},
		{},
	}
	got := Sum(ws, nil)
	want := Totals{Workers: 3, Loops: 2, Outcomes: Outcomes{Total: 4, Done: 1, Failed: 2, Hung: 1}, CostUSD: usd(1.5),
		Tokens: &cost.Usage{Output: 5}, Commits: 2, Time: Time{WorkingS: 15, Waiting: Waits{BackoffS: 3, UsageLimitS: 60}},
		Landed: 1, NeedsPerson: 1}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("totals %+v, want %+v", got, want)
	}
}
