package ralph

import (
	"fmt"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"
)

// Agent mode (swarm agent): one worker works through its project's spec inbox, one spec after
// another. Each spec is two loops in the same worker, as a chain's steps are: PLAN (the agent
// writes the spec's tasks to ralph/plan.jsonl) and CONSTRUCT (a loop on the spec until its
// completion rule holds); then swarm commits the spec's changes and fetches the next one. A
// failed spec has its changes stashed and the agent goes on. This file holds the decisions;
// agentmode_spec.go and agentmode_files.go the spec's life and files, and the driver's
// feature_agentmode*.go (ralph/driver) carry them out.

// Agent mode stages: the loop that runs for the current spec.
const (
	StagePlan      = "plan"
	StageConstruct = "construct"
)

// PlanIterations is how many iterations planning a spec may take: a plan that comes out
// empty (or an agent that crashed) gets another go before the spec fails.
const PlanIterations = 3

// What a spec's failed changes become (--on-failure).
const (
	OnFailureStash = "stash"
	OnFailureReset = "reset"
)

// AgentSession is the project's ralph/.agent-session: the seed's fields, plus the worker
// that holds the session and the failures in a row, so a new agent resumes both.
type AgentSession struct {
	StartedAt           string  `json:"started_at"`
	SpecsCompleted      int     `json:"specs_completed"`
	SpecsFailed         int     `json:"specs_failed"`
	TotalCost           float64 `json:"total_cost"`
	CurrentSpecID       string  `json:"current_spec_id"`
	Worker              string  `json:"worker,omitempty"`
	ConsecutiveFailures int     `json:"consecutive_failures,omitempty"`
	// Unrecorded are specs finished while the inbox could not be written (unreadable, say):
	// they are recorded there as soon as it can be, before anything is fetched from it.
	Unrecorded []UnrecordedSpec `json:"unrecorded,omitempty"`
	// Claim is the commit of the agent's last claim on its current spec (--shared): the lease
	// of its next change, and how a new agent of the session knows the claim for its own.
	Claim string `json:"claim,omitempty"`
	// Undelivered are specs committed while the shared remote was away (--shared).
	Undelivered []UndeliveredSpec `json:"undelivered,omitempty"`
}

// UnrecordedSpec is a spec's end that the inbox does not show yet.
type UnrecordedSpec struct {
	ID    string `json:"id"`
	Error string `json:"error,omitempty"` // why it failed; "" when it was done
	At    string `json:"at"`
}

// AgentMode is $SWARM_DIR/ralph/<name>/agent.json: an agent-mode worker's settings and where
// it is in its inbox.
type AgentMode struct {
	Project       string   `json:"project"` // the git root holding ralph/inbox.jsonl
	MaxSpecs      int      `json:"max_specs,omitempty"`
	MaxCost       float64  `json:"max_cost,omitempty"`
	MaxFailures   int      `json:"max_failures"`
	DryRun        bool     `json:"dry_run,omitempty"`
	OnFailure     string   `json:"on_failure"`
	MaxIterations int      `json:"max_iterations"` // of each spec's CONSTRUCT loop
	Checks        []string `json:"checks,omitempty"`
	Log           string   `json:"log"` // $SWARM_DIR/ralph/NAME/agent-<timestamp>.log
	// Shared: the queue is shared with agents in other clones through a git remote.
	Shared *SharedInbox `json:"shared,omitempty"`

	Stage         string  `json:"stage"` // "": the agent has ended
	RunID         string  `json:"run_id"`
	SpecID        string  `json:"spec_id,omitempty"`
	Spec          string  `json:"spec,omitempty"`
	SpecStartedAt string  `json:"spec_started_at,omitempty"`
	SpecCostBase  float64 `json:"spec_cost_base,omitempty"` // the loop's cost when the spec began
	// CommitStarted: COMMIT began for the spec; a monitor that finds it set took over from
	// one stopped while it committed.
	CommitStarted bool     `json:"commit_started,omitempty"`
	CostBase      float64  `json:"cost_base,omitempty"` // the session's cost before this worker
	Completed     int      `json:"completed,omitempty"` // specs completed by this worker
	Planned       []string `json:"planned,omitempty"`   // --dry-run: the ids planned so far
	StopReason    string   `json:"stop_reason,omitempty"`

	Session AgentSession `json:"session"`
}

// StageEnd is how a stage's loop ended.
type StageEnd struct {
	Outcome Outcome
	Reason  string // the loop's exit reason
	Tasks   int    // PLAN: the tasks in ralph/plan.jsonl
	// OverBudget: the session has spent its --max-cost. A loop that completed is not ended
	// by its budget, so the agent checks it before building on a plan.
	OverBudget bool
}

// AgentStep is what follows a stage.
type AgentStep int

// The steps after a stage has ended.
const (
	StepConstruct AgentStep = iota // the plan is there: build it
	StepCommit                     // the spec is complete: commit it
	StepFail                       // the spec failed: set its changes aside, go on
	StepPlanned                    // --dry-run: planned, not executed; go on
	StepBudget                     // the budget ran out mid-spec: the spec waits, the agent stops
	StepHalt                       // stopped from outside: the spec waits for the next agent
	StepLost                       // --shared: the spec's claim was taken over; its work is set aside
)

// AfterStage decides what follows the end of a stage's loop, and for a failure, why.
func AfterStage(stage string, e StageEnd, dryRun bool) (AgentStep, string) {
	if e.Reason == "budget_exceeded" {
		return StepBudget, ""
	}
	if e.Reason == ReasonClaimLost {
		return StepLost, ""
	}
	if stage == StagePlan {
		step, why := afterPlan(e, dryRun)
		if step == StepConstruct && e.OverBudget {
			return StepBudget, ""
		}
		return step, why
	}
	switch {
	case e.Reason == "max_iterations":
		// Without checkers a loop counts its last iteration as the end of the job; a spec
		// needs its done signal.
		return StepFail, "construct " + failureText(e.Reason)
	case e.Outcome == OutcomeComplete:
		return StepCommit, ""
	case e.Outcome == OutcomeStagnated:
		return StepFail, "construct stagnated: no changes in several iterations"
	case e.Outcome == OutcomeFailure:
		return StepFail, "construct " + failureText(e.Reason)
	}
	return StepHalt, ""
}

func afterPlan(e StageEnd, dryRun bool) (AgentStep, string) {
	switch {
	case e.Outcome == OutcomeComplete && e.Tasks > 0, e.Outcome == OutcomeFailure && e.Tasks > 0 && e.Reason == "max_iterations":
		if dryRun {
			return StepPlanned, ""
		}
		return StepConstruct, ""
	case e.Outcome == OutcomeComplete, e.Outcome == OutcomeFailure && e.Reason == "max_iterations":
		return StepFail, fmt.Sprintf("planning produced no tasks in ralph/plan.jsonl (%d iterations)", PlanIterations)
	case e.Outcome == OutcomeStagnated:
		return StepFail, "planning stagnated"
	case e.Outcome == OutcomeFailure:
		return StepFail, "planning " + failureText(e.Reason)
	}
	return StepHalt, ""
}

// failureText words a failed loop's exit reason.
func failureText(reason string) string {
	switch reason {
	case "max_iterations":
		return "did not complete within its iterations"
	case "all_iterations_failed":
		return "failed: every iteration failed"
	case "":
		return "failed"
	}
	return "failed: " + reason
}

// SpecEnded counts a finished spec in the session (ok: it was committed) and forgets it.
func (am *AgentMode) SpecEnded(ok bool) {
	s := &am.Session
	if ok {
		s.SpecsCompleted++
		am.Completed++
		s.ConsecutiveFailures = 0
	} else {
		s.SpecsFailed++
		s.ConsecutiveFailures++
	}
	am.ClearSpec()
}

// Agent stop reasons, as the loop's exit reason records them.
const (
	AgentInboxEmpty  = "inbox_empty"
	AgentMaxSpecs    = "max_specs"
	AgentMaxFailures = "max_failures"
	AgentBudget      = "budget_exceeded"
	AgentDryRunDone  = "dry_run_complete"
	// AgentInboxCorrupt: the inbox cannot be read; the agent stops until it is fixed.
	AgentInboxCorrupt = "inbox_corrupt"
)

// LimitReached says which of the agent's limits, if any, stops it between specs.
func (am *AgentMode) LimitReached() string {
	switch {
	case am.MaxFailures > 0 && am.Session.ConsecutiveFailures >= am.MaxFailures:
		return AgentMaxFailures
	case am.MaxSpecs > 0 && am.Completed >= am.MaxSpecs:
		return AgentMaxSpecs
	case am.MaxCost > 0 && am.Session.TotalCost >= am.MaxCost:
		return AgentBudget
	}
	return ""
}

// StopMessage is the agent log's line for why the agent stopped.
func (am *AgentMode) StopMessage(reason string) string {
	switch reason {
	case AgentMaxSpecs:
		return fmt.Sprintf("Max specs reached (%d). Agent stopping.", am.MaxSpecs)
	case AgentMaxFailures:
		return fmt.Sprintf("%d specs failed in a row (--max-failures %d). Agent stopping.", am.Session.ConsecutiveFailures, am.MaxFailures)
	case AgentBudget:
		return fmt.Sprintf("Cost limit reached ($%.2f of $%.2f). Agent stopping.", am.Session.TotalCost, am.MaxCost)
	case AgentDryRunDone:
		return fmt.Sprintf("Dry run: %s planned, nothing executed. Agent stopping.", words.Plural(len(am.Planned), "spec"))
	case AgentInboxCorrupt:
		return "Inbox unreadable (ralph/inbox.jsonl). Agent stopping until it is fixed."
	case AgentRemoteUnreachable:
		return fmt.Sprintf("Shared remote '%s' cannot be reached. Agent stopping.", am.sharedRemote())
	}
	if am.Shared != nil {
		return SharedEmptyMessage(am.Shared.Remote)
	}
	return "Inbox empty. Agent stopping."
}

// SummaryLine is the session's last log line: "Session summary: 3 specs, $2.45, 1h 23m".
func (am *AgentMode) SummaryLine(now time.Time) string {
	return fmt.Sprintf("Session summary: %s, $%.2f, %s", words.Plural(am.Session.SpecsCompleted, "spec"),
		am.Session.TotalCost, am.Elapsed(now))
}

// Elapsed is the session's time so far, as the status and summary show it: "1h 23m".
func (am *AgentMode) Elapsed(now time.Time) string {
	start, err := time.Parse(time.RFC3339, am.Session.StartedAt)
	if err != nil {
		return "0m"
	}
	return words.HoursMinutes(now.Sub(start))
}

func (am *AgentMode) sharedRemote() string {
	if am.Shared == nil {
		return ""
	}
	return am.Shared.Remote
}
