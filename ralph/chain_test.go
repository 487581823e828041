package ralph

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph/config"
)

func TestParseChain(t *testing.T) {
	steps, err := ParseChain("planner:10 -> builder:20->tester:5")
	want := []ChainStep{{Agent: "planner", MaxIterations: 10}, {Agent: "builder", MaxIterations: 20}, {Agent: "tester", MaxIterations: 5}}
	if err != nil || !reflect.DeepEqual(steps, want) {
		t.Fatalf("%+v %v", steps, err)
	}
	for def, msg := range map[string]string{
		"":                      "invalid --chain: empty",
		"planner":               `position 1 (step 1, "planner"): expected AGENT:ITERATIONS`,
		"planner:10 -> builder": `position 15 (step 2, "builder")`,
		"planner:10 => b:2":     `position 1 (step 1, "planner:10 => b:2")`,
		"planner:0 -> b:1":      "position 1 (step 1): planner needs at least 1 iteration",
		"a:1 -> b:x":            `position 8 (step 2, "b:x")`,
	} {
		if _, err := ParseChain(def); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want %q", def, err, msg)
		}
	}
}

func TestChainSteps(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	steps, _ := ParseChain("a:1 -> b:2 -> c:3")
	cs := NewChain("id", "a:1 -> b:2 -> c:3", steps, now)
	if cs.Steps[0].Status != ChainRunning || cs.Steps[1].Status != ChainPending || cs.Line(1) != "a (1/1) → b → c" {
		t.Fatalf("new chain %+v %q", cs.Steps, cs.Line(1))
	}
	if a := cs.StepEnded(OutcomeOther, "killed", now); a != ChainStay || cs.CurrentStep != 0 {
		t.Errorf("a loop stopped by the user moves nothing: %v", a)
	}
	if a := cs.StepEnded(OutcomeComplete, "done_pattern", now); a != ChainNext || cs.CurrentStep != 1 || cs.Steps[1].Status != ChainRunning {
		t.Errorf("complete step: %v %+v", a, cs)
	}
	if a := cs.StepEnded(OutcomeStagnated, "stagnated", now); a != ChainStop || cs.Status != ChainFailed {
		t.Errorf("stagnated step: %v %s", a, cs.Status)
	}
	if got := cs.Line(2); got != "a ✓ → b ✗ (stagnated) → c" {
		t.Errorf("line %q", got)
	}
	if a := cs.StepEnded(OutcomeComplete, "x", now); a != ChainStay {
		t.Error("a stopped chain moved on")
	}
	cs.Resumed()
	if cs.Status != ChainRunning || cs.Steps[1].Status != ChainRunning || cs.CurrentStep != 1 {
		t.Errorf("resumed %+v", cs)
	}
	cs.StepEnded(OutcomeComplete, "max_iterations", now)
	if a := cs.StepEnded(OutcomeComplete, "complete", now); a != ChainDone || cs.Status != ChainComplete || cs.CompletedAt == "" {
		t.Errorf("last step: %v %+v", a, cs)
	}
}

func TestApplyStepStartsAFreshLoop(t *testing.T) {
	st := &State{Status: StatusStopped, ExitReason: "complete", CurrentIteration: 3, TotalFailures: 2, Finalized: true,
		Checks: []string{"old"}, CostUSD: 1.5, CostCountedFor: 3, InactivityTimeout: 60}
	step := ChainStepState{ChainStep: ChainStep{Agent: "b", MaxIterations: 7, Checks: []string{"file:x"}},
		Profile: config.AgentProfile{Cmd: []string{"/bin/codex"}, PromptFile: "/p/B.md", Checks: []string{"exit-code"}, InactivityTimeout: 30}}
	st.ApplyStep(1, step, "run2")
	if st.Status != StatusRunning || st.Phase != PhaseEnded || st.CurrentIteration != 0 || st.TotalFailures != 0 || st.Finalized ||
		st.ExitReason != "" || st.MaxIterations != 7 || st.PromptFile != "/p/B.md" || st.Agent != "codex" || st.ChainStep != 1 ||
		st.RunID != "run2" || st.InactivityTimeout != 30 || !reflect.DeepEqual(st.Checks, []string{"exit-code", "file:x"}) {
		t.Errorf("state %+v", st)
	}
	// What the loop has cost so far stays; the per-iteration guard starts over.
	if st.CostUSD != 1.5 || st.CostCountedFor != 0 {
		t.Errorf("cost %v counted for %d", st.CostUSD, st.CostCountedFor)
	}
}
