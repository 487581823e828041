package ralph

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/swarm-dev/swarm/ralph/inbox"
	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state"
)

// The life of one spec in agent mode, as functions of the inbox and the agent's state: FETCH
// takes it from the queue, BeginSpec points the agent at it, CommitMessage words its commit.

// PlanCheck is the PLAN stage's completion rule: the plan has at least one task.
const PlanCheck = `command:grep -qs '"t" *: *"task"' ralph/plan.jsonl`

// FetchSpec is FETCH: the session's interrupted spec first, else the first pending one (not
// yet planned, in a dry run), marked active. A spec whose file is gone is marked failed
// instead and returned with missing set; nil when nothing is left to do.
func FetchSpec(ib inbox.Inbox, am *AgentMode, now time.Time) (rec *inbox.Record, missing bool, err error) {
	err = ib.Update(func(recs []inbox.Record) ([]inbox.Record, error) {
		i := -1
		if id := am.Session.CurrentSpecID; id != "" {
			if j := inbox.Index(recs, id); j >= 0 && (recs[j].Status == inbox.Pending || recs[j].Status == inbox.Active) {
				i = j
			}
		}
		if i < 0 {
			i = inbox.Next(recs, am.Planned)
		}
		if i < 0 {
			return recs, nil
		}
		if _, err := os.Stat(SpecPath(am.Project, recs[i].Spec)); err != nil {
			inbox.Finish(recs, recs[i].ID, "spec file not found: ralph/specs/"+recs[i].Spec, now)
			missing = true
		} else {
			inbox.Activate(recs, i, now)
		}
		r := recs[i]
		rec = &r
		return recs, nil
	})
	return rec, missing, err
}

// BeginSpec makes rec the agent's current spec. The interrupted spec of a session goes on
// where it was (CONSTRUCT when its plan has tasks); any other starts with a fresh plan.
func BeginSpec(am *AgentMode, rec inbox.Record, loopCost float64) error {
	resumed := rec.ID == am.Session.CurrentSpecID
	am.SpecID, am.Spec, am.SpecStartedAt, am.SpecCostBase = rec.ID, rec.Spec, rec.StartedAt, loopCost
	am.Session.CurrentSpecID = rec.ID
	if resumed && PlanTasks(am.Project, rec.Spec) > 0 && !am.DryRun {
		am.Stage = StageConstruct
		return nil
	}
	am.Stage = StagePlan
	return StartPlan(am.Project, rec.Spec)
}

// ClearSpec forgets the current spec without counting it (a dry run's planned spec).
func (am *AgentMode) ClearSpec() {
	am.Session.CurrentSpecID, am.Session.Claim = "", ""
	am.Stage, am.SpecID, am.Spec, am.SpecStartedAt = "", "", "", ""
	am.CommitStarted = false
}

// SpecFacts is what a spec's commit tells about it.
type SpecFacts struct {
	ID       string // the spec's inbox id, a trailer by which a successor finds the commit made
	Spec     string
	Tasks    int
	Duration time.Duration
	Cost     *float64 // nil when the agent reports no token use
}

// CommitMessage is a completed spec's commit message, as the seed words it.
func CommitMessage(f SpecFacts) string {
	cost := "unknown (the agent reports no token use)"
	if f.Cost != nil {
		cost = fmt.Sprintf("$%.2f", *f.Cost)
	}
	msg := fmt.Sprintf("ralph: complete %s\n\nSpec: ralph/specs/%s\nTasks completed: %d\nDuration: %s\nCost: %s",
		SpecName(f.Spec), f.Spec, f.Tasks, words.MinutesSeconds(f.Duration), cost)
	if f.ID != "" {
		msg += "\n\n" + SpecIDTrailer + ": " + f.ID
	}
	return msg
}

// SpecIDTrailer names the trailer of a spec's commit that carries its inbox id.
const SpecIDTrailer = "Ralph-Spec-Id"

// ApplyAgentStage turns the loop state into a fresh loop of the agent's current stage.
func (st *State) ApplyAgentStage(am *AgentMode, promptFile string) {
	st.RunID, st.PromptFile = am.RunID, promptFile
	if am.Stage == StagePlan {
		st.MaxIterations, st.Checks = PlanIterations, []string{PlanCheck}
	} else {
		st.MaxIterations, st.Checks = am.MaxIterations, append([]string{}, am.Checks...)
	}
	st.ResetForNextLoop()
}

// ResetForNextLoop clears what belonged to the loop before: its counters, its verdicts and
// its waits. Settings and cost totals stay.
func (st *State) ResetForNextLoop() {
	st.CurrentIteration, st.ConsecutiveFailures, st.TotalFailures, st.LastExitCode = 0, 0, 0, nil
	st.Status, st.Phase, st.ExitReason, st.Ended, st.Finalized = StatusRunning, PhaseEnded, "", "", false
	st.Signals, st.LastChecks, st.StagnantIterations, st.CostCountedFor, st.LastFailure = nil, nil, 0, 0, nil
	st.BlockedBy, st.WaitingUntil, st.WaitingFor, st.WaitingReset, st.BackoffUntil = "", "", "", "", ""
	st.personMayGo()
}

// A SpecQueue is where an agent takes its specs from: the project's own inbox (LocalQueue),
// or one shared with agents in other clones (ralph/sharedinbox).
type SpecQueue interface {
	// Fetch is FETCH: it takes the next spec for the agent and marks it active (nil when
	// nothing is left to take); a spec whose file is gone comes back failed, with missing set.
	Fetch(am *AgentMode, now time.Time, say func(string, ...any)) (rec *inbox.Record, missing bool, err error)
	// Failed records the agent's current spec as failed, with why, before its loops began.
	Failed(am *AgentMode, why string, now time.Time, say func(string, ...any)) error
}

// LocalQueue is the project's own inbox.
type LocalQueue struct{}

// Fetch is FetchSpec.
func (LocalQueue) Fetch(am *AgentMode, now time.Time, _ func(string, ...any)) (*inbox.Record, bool, error) {
	return FetchSpec(inbox.Inbox{Root: am.Project}, am, now)
}

// Failed is FinishSpec.
func (LocalQueue) Failed(am *AgentMode, why string, now time.Time, _ func(string, ...any)) error {
	return FinishSpec(am, why, now)
}

// NextSpec is FETCH (from q) until a spec is begun and its stage's prompt filled in.
// Specs whose file is gone or unreadable fail on the way (said through say). It returns the
// prompt, or why the agent stops instead.
func NextSpec(am *AgentMode, q SpecQueue, now time.Time, loopCost float64, say func(string, ...any)) (prompt, stop string, err error) {
	if err := RecordUnrecorded(am, say); err != nil {
		return "", AgentInboxCorrupt, err
	}
	for {
		if reason := am.LimitReached(); reason != "" {
			return "", reason, nil
		}
		rec, missing, err := q.Fetch(am, now, say)
		switch {
		case errors.Is(err, ErrRemoteUnreachable):
			return "", AgentRemoteUnreachable, err
		case err != nil:
			return "", AgentInboxCorrupt, err
		case rec == nil && am.DryRun:
			return "", AgentDryRunDone, nil
		case rec == nil:
			return "", AgentInboxEmpty, nil
		case missing:
			say("FETCH: %s %s: spec file not found, marked failed", rec.ID, rec.Spec)
			am.SpecEnded(false)
			continue
		}
		say("FETCH: %s %s", rec.ID, rec.Spec)
		err = BeginSpec(am, *rec, loopCost)
		if err == nil {
			prompt, err = AgentPrompt(am.Project, am.Stage, *rec)
		}
		if err == nil {
			return prompt, "", nil
		}
		say("FAILED: %s %s: %v", rec.ID, rec.Spec, err)
		if uerr := q.Failed(am, err.Error(), now, say); uerr != nil {
			return "", AgentInboxCorrupt, uerr
		}
		am.SpecEnded(false)
	}
}

// RecordUnrecorded writes to the inbox the ends of specs it could not take when they came
// (see AgentSession.Unrecorded).
func RecordUnrecorded(am *AgentMode, say func(string, ...any)) error {
	late := am.Session.Unrecorded
	if len(late) == 0 {
		return nil
	}
	err := inbox.Inbox{Root: am.Project}.Update(func(recs []inbox.Record) ([]inbox.Record, error) {
		for _, u := range late {
			at, _ := state.ParseTime(u.At)
			inbox.Finish(recs, u.ID, u.Error, at)
		}
		return recs, nil
	})
	if err != nil {
		return err
	}
	for _, u := range late {
		word := "done"
		if u.Error != "" {
			word = "failed"
		}
		say("INBOX: %s recorded as %s (the inbox could not be written when it ended)", u.ID, word)
	}
	am.Session.Unrecorded = nil
	return nil
}

// FinishSpec records the current spec in the inbox: done, or failed with why.
func FinishSpec(am *AgentMode, why string, now time.Time) error {
	return am.changeInbox(func(recs []inbox.Record) { inbox.Finish(recs, am.SpecID, why, now) })
}

// RequeueSpec puts the current spec back to pending: it was interrupted, not finished.
func RequeueSpec(am *AgentMode) error {
	return am.changeInbox(func(recs []inbox.Record) { inbox.Requeue(recs, am.SpecID) })
}

// changeInbox changes records of the project's inbox in place, under its lock.
func (am *AgentMode) changeInbox(fn func([]inbox.Record)) error {
	return inbox.Inbox{Root: am.Project}.Update(func(recs []inbox.Record) ([]inbox.Record, error) {
		fn(recs)
		return recs, nil
	})
}
