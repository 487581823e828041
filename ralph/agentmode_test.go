package ralph

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph/inbox"
)

func TestAfterStage(t *testing.T) {
	cases := []struct {
		name   string
		stage  string
		end    StageEnd
		dryRun bool
		step   AgentStep
		why    string
	}{
		{"plan with tasks", StagePlan, StageEnd{Outcome: OutcomeComplete, Reason: "complete", Tasks: 3}, false, StepConstruct, ""},
		{"plan without a done claim, tasks written", StagePlan, StageEnd{Outcome: OutcomeFailure, Reason: "max_iterations", Tasks: 2}, false, StepConstruct, ""},
		{"plan in a dry run", StagePlan, StageEnd{Outcome: OutcomeComplete, Reason: "complete", Tasks: 1}, true, StepPlanned, ""},
		{"plan without tasks", StagePlan, StageEnd{Outcome: OutcomeFailure, Reason: "max_iterations"}, false, StepFail, "planning produced no tasks in ralph/plan.jsonl (3 iterations)"},
		{"plan that crashed", StagePlan, StageEnd{Outcome: OutcomeFailure, Reason: "all_iterations_failed"}, false, StepFail, "planning failed: every iteration failed"},
		{"plan stagnated", StagePlan, StageEnd{Outcome: OutcomeStagnated, Reason: "stagnated"}, false, StepFail, "planning stagnated"},
		{"plan stopped from outside", StagePlan, StageEnd{Outcome: OutcomeOther, Reason: "killed"}, false, StepHalt, ""},
		{"plan over budget", StagePlan, StageEnd{Outcome: OutcomeComplete, Reason: "complete", Tasks: 1, OverBudget: true}, false, StepBudget, ""},
		{"plan over budget and empty", StagePlan, StageEnd{Outcome: OutcomeComplete, Reason: "complete", OverBudget: true}, false, StepFail, "planning produced no tasks in ralph/plan.jsonl (3 iterations)"},
		{"construct complete over budget: committed first", StageConstruct, StageEnd{Outcome: OutcomeComplete, Reason: "complete", OverBudget: true}, false, StepCommit, ""},
		{"construct complete", StageConstruct, StageEnd{Outcome: OutcomeComplete, Reason: "complete"}, false, StepCommit, ""},
		{"construct done pattern", StageConstruct, StageEnd{Outcome: OutcomeComplete, Reason: "done_pattern"}, false, StepCommit, ""},
		{"construct out of iterations, no checkers", StageConstruct, StageEnd{Outcome: OutcomeComplete, Reason: "max_iterations"}, false, StepFail, "construct did not complete within its iterations"},
		{"construct out of iterations, checks failing", StageConstruct, StageEnd{Outcome: OutcomeFailure, Reason: "max_iterations"}, false, StepFail, "construct did not complete within its iterations"},
		{"construct crashed", StageConstruct, StageEnd{Outcome: OutcomeFailure, Reason: "all_iterations_failed"}, false, StepFail, "construct failed: every iteration failed"},
		{"construct stagnated", StageConstruct, StageEnd{Outcome: OutcomeStagnated, Reason: "stagnated"}, false, StepFail, "construct stagnated: no changes in several iterations"},
		{"construct over budget", StageConstruct, StageEnd{Outcome: OutcomeOther, Reason: "budget_exceeded"}, false, StepBudget, ""},
		{"construct stopped from outside", StageConstruct, StageEnd{Outcome: OutcomeOther, Reason: "stopped"}, false, StepHalt, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			step, why := AfterStage(c.stage, c.end, c.dryRun)
			if step != c.step || why != c.why {
				t.Errorf("got %v %q, want %v %q", step, why, c.step, c.why)
			}
		})
	}
}

func TestSpecEndedAndLimits(t *testing.T) {
	am := &AgentMode{MaxFailures: 2, MaxSpecs: 2, Stage: StageConstruct, SpecID: "q-aaaa", Session: AgentSession{CurrentSpecID: "q-aaaa"}}
	am.SpecEnded(false)
	if am.Session.SpecsFailed != 1 || am.Session.ConsecutiveFailures != 1 || am.Stage != "" || am.Session.CurrentSpecID != "" {
		t.Fatalf("after a failure: %+v", am)
	}
	if r := am.LimitReached(); r != "" {
		t.Errorf("one failure of two stops: %s", r)
	}
	am.SpecEnded(true)
	if am.Session.ConsecutiveFailures != 0 || am.Completed != 1 || am.Session.SpecsCompleted != 1 {
		t.Errorf("a success resets the failures in a row: %+v", am.Session)
	}
	am.SpecEnded(false)
	am.SpecEnded(false)
	if r := am.LimitReached(); r != AgentMaxFailures {
		t.Errorf("two failures in a row: %q", r)
	}
	am.Session.ConsecutiveFailures = 0
	am.SpecEnded(true)
	if r := am.LimitReached(); r != AgentMaxSpecs {
		t.Errorf("two specs completed: %q", r)
	}
	// Specs completed by the session's earlier agent do not count against this one's limit.
	resumed := &AgentMode{MaxSpecs: 1, Session: AgentSession{SpecsCompleted: 4}}
	if r := resumed.LimitReached(); r != "" {
		t.Errorf("resumed session: %q", r)
	}
	spent := &AgentMode{MaxCost: 2, Session: AgentSession{TotalCost: 2.01}}
	if r := spent.LimitReached(); r != AgentBudget || !strings.Contains(spent.StopMessage(r), "($2.01 of $2.00)") {
		t.Errorf("budget: %q %q", r, spent.StopMessage(r))
	}
}

func TestCommitMessage(t *testing.T) {
	c := 0.8249
	got := CommitMessage(SpecFacts{Spec: "feature-x.md", Tasks: 8, Duration: 15*time.Minute + 32*time.Second + 400*time.Millisecond, Cost: &c})
	want := "ralph: complete feature-x\n\nSpec: ralph/specs/feature-x.md\nTasks completed: 8\nDuration: 15m 32s\nCost: $0.82"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := CommitMessage(SpecFacts{ID: "q-ab12", Spec: "x.md"}); !strings.HasSuffix(got, "Cost: unknown (the agent reports no token use)\n\nRalph-Spec-Id: q-ab12") {
		t.Errorf("no id trailer:\n%s", got)
	}
	if got := CommitMessage(SpecFacts{Spec: "y.md", Duration: 2 * time.Hour}); !strings.Contains(got, "Duration: 2h 0m 0s\nCost: unknown") {
		t.Errorf("no cost known:\n%s", got)
	}
	am := &AgentMode{Session: AgentSession{SpecsCompleted: 3, TotalCost: 2.45, StartedAt: "2025-01-20T10:00:00Z"}}
	if got := am.SummaryLine(time.Date(2025, 1, 20, 11, 23, 45, 0, time.UTC)); got != "Session summary: 3 specs, $2.45, 1h 23m" {
		t.Errorf("summary %q", got)
	}
}

// project makes a project with an inbox of specs (a name ending in "-gone" has no file).
func project(t *testing.T, specs ...string) (*AgentMode, inbox.Inbox) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "ralph", "specs"), 0o755); err != nil {
		t.Fatal(err)
	}
	ib := inbox.Inbox{Root: dir}
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	for _, s := range specs {
		if !strings.HasSuffix(s, "-gone.md") {
			if err := os.WriteFile(SpecPath(dir, s), []byte("# "+s+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := ib.Update(func(recs []inbox.Record) ([]inbox.Record, error) { r, _ := inbox.Add(recs, s, now); return r, nil }); err != nil {
			t.Fatal(err)
		}
	}
	return &AgentMode{Project: dir, MaxFailures: 3}, ib
}

func TestNextSpecTakesTheQueueInOrderAndFailsMissingSpecs(t *testing.T) {
	am, ib := project(t, "a-gone.md", "b.md", "c.md")
	now := time.Date(2026, 11, 25, 11, 0, 0, 0, time.UTC)
	var said []string
	say := func(f string, a ...any) { said = append(said, f) }
	prompt, stop, err := NextSpec(am, LocalQueue{}, now, 0, say)
	if err != nil || stop != "" || am.Spec != "b.md" || am.Stage != StagePlan || !strings.Contains(prompt, "Spec: ralph/specs/b.md") {
		t.Fatalf("%q %v %+v", stop, err, am)
	}
	recs, _ := ib.Load()
	if recs[0].Status != inbox.Failed || recs[0].Error != "spec file not found: ralph/specs/a-gone.md" || recs[1].Status != inbox.Active ||
		recs[1].StartedAt != "2026-11-25T11:00:00Z" || am.Session.SpecsFailed != 1 || am.Session.CurrentSpecID != recs[1].ID {
		t.Errorf("inbox %+v, session %+v", recs, am.Session)
	}
	if PlanTasks(am.Project, "b.md") != 0 {
		t.Error("a fresh plan has no tasks")
	}
	data, _ := os.ReadFile(PlanPath(am.Project))
	if string(data) != `{"t":"spec","spec":"b.md"}`+"\n" {
		t.Errorf("plan %q", data)
	}
}

func TestNextSpecResumesTheSessionsSpecAtItsStage(t *testing.T) {
	am, ib := project(t, "a.md", "b.md")
	recs, _ := ib.Load()
	am.Session.CurrentSpecID = recs[1].ID // interrupted: back to pending, still the session's
	plan := `{"t":"spec","spec":"b.md"}` + "\n" + `{"t":"task","id":"t-1"}` + "\nnot json\n" + `{"t": "task", "id": "t-2"}` + "\n"
	if err := os.WriteFile(PlanPath(am.Project), []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stop, err := NextSpec(am, LocalQueue{}, time.Now(), 0, func(string, ...any) {})
	if err != nil || stop != "" || am.Spec != "b.md" || am.Stage != StageConstruct {
		t.Fatalf("%q %v %+v", stop, err, am)
	}
	if n := PlanTasks(am.Project, "b.md"); n != 2 {
		t.Errorf("tasks %d (the plan was kept)", n)
	}
	if n := PlanTasks(am.Project, "a.md"); n != 0 {
		t.Errorf("another spec's tasks counted: %d", n)
	}
}

func TestNextSpecStops(t *testing.T) {
	am, _ := project(t, "a.md")
	if _, stop, _ := NextSpec(am, LocalQueue{}, time.Now(), 0, func(string, ...any) {}); stop != "" {
		t.Fatal(stop)
	}
	am.SpecEnded(true)
	if _, stop, _ := NextSpec(am, LocalQueue{}, time.Now(), 0, func(string, ...any) {}); stop != AgentInboxEmpty {
		t.Errorf("empty inbox: %q", stop)
	}
	dry, _ := project(t, "a.md")
	dry.DryRun, dry.Planned = true, nil
	_, _, _ = NextSpec(dry, LocalQueue{}, time.Now(), 0, func(string, ...any) {})
	dry.Planned = append(dry.Planned, dry.SpecID)
	dry.ClearSpec()
	if err := FinishSpec(&AgentMode{Project: dry.Project, SpecID: "q-none"}, "", time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, stop, _ := NextSpec(dry, LocalQueue{}, time.Now(), 0, func(string, ...any) {}); stop != AgentDryRunDone {
		t.Errorf("dry run: %q", stop)
	}
	broken, ib := project(t)
	if err := os.WriteFile(ib.Path(), []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stop, err := NextSpec(broken, LocalQueue{}, time.Now(), 0, func(string, ...any) {}); stop != AgentInboxCorrupt || err == nil {
		t.Errorf("corrupt inbox: %q %v", stop, err)
	}
}

func TestAgentPromptFillsInTheSpec(t *testing.T) {
	am, ib := project(t, "feature-x.md")
	recs, _ := ib.Load()
	got, err := AgentPrompt(am.Project, StageConstruct, recs[0])
	if err != nil || !strings.Contains(got, "Spec: ralph/specs/feature-x.md\n\n# feature-x.md\n\nThe plan is in ralph/plan.jsonl") {
		t.Fatalf("%v\n%s", err, got)
	}
	own := "{{spec_name}} {{spec_id}} {{plan_path}}"
	if err := os.WriteFile(filepath.Join(am.Project, "ralph", "PLAN_PROMPT.md"), []byte(own), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := AgentPrompt(am.Project, StagePlan, recs[0]); got != "feature-x "+recs[0].ID+" ralph/plan.jsonl" {
		t.Errorf("the project's own prompt: %q", got)
	}
}

func TestSequencePending(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	stopped := func(status Status, reason string) *State { return &State{Status: status, ExitReason: reason} }
	if d.SequencePending(stopped(StatusStopped, "complete")) {
		t.Error("a plain loop has no next loop")
	}
	am := &AgentMode{Project: t.TempDir(), Stage: StagePlan}
	if err := os.MkdirAll(filepath.Join(am.Project, "ralph"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := d.SaveAgentMode(am); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		st   *State
		want bool
	}{
		{stopped(StatusStopped, "complete"), true},
		{stopped(StatusFailed, "all_iterations_failed"), true},
		{stopped(StatusStopped, "budget_exceeded"), true},
		{stopped(StatusStopped, "killed"), false},
		{stopped(StatusStopped, "worker_gone"), false},
		{stopped(StatusRunning, ""), false},
		{stopped(StatusPaused, ""), false},
	} {
		if got := d.SequencePending(c.st); got != c.want {
			t.Errorf("agent, %s/%s: %v", c.st.Status, c.st.ExitReason, got)
		}
	}
	am.Stage = ""
	if err := d.SaveAgentMode(am); err != nil {
		t.Fatal(err)
	}
	if d.SequencePending(stopped(StatusStopped, "complete")) {
		t.Error("an agent that has ended has no next loop")
	}
	chain := Dir{Path: t.TempDir()}
	cs := NewChain("id", "a:1 -> b:1", []ChainStep{{Agent: "a", MaxIterations: 1}, {Agent: "b", MaxIterations: 1}}, time.Now())
	if err := chain.SaveChain(cs); err != nil {
		t.Fatal(err)
	}
	if !chain.SequencePending(stopped(StatusStopped, "complete")) {
		t.Error("a running chain whose step's loop completed")
	}
	cs.Status = ChainComplete
	if err := chain.SaveChain(cs); err != nil {
		t.Fatal(err)
	}
	if chain.SequencePending(stopped(StatusStopped, "complete")) {
		t.Error("a complete chain")
	}
}
