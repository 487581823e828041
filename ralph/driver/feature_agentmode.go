package driver

import (
	"os"
	"path/filepath"

	"github.com/google/uuid"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/ralph/inbox"
	"github.com/swarm-dev/swarm/ralph/sharedinbox"
	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state"
)

// Driving agent mode: when a stage's loop has ended, the monitor carries out what AfterStage
// decides (commit, set aside, fetch the next spec) and starts the next stage's loop in the
// same worker. agent.json is saved before the loop state changes, so a monitor that dies in
// between finds the next stage decided and only applies it.

// agentModeServices are what agent mode asks of the driver: the one slice of its services
// (services.go) it uses.
type agentModeServices interface {
	dir() ralph.Dir
	name() string
	clock() Clock
	say(format string, args ...any)
	logEvent(kind, text string)
	recorded(err error)
	update(fn func(*ralph.State) error)
	freshLoop()
}

// agentMode is the feature that drives agent mode's stages and specs.
type agentMode struct {
	drv agentModeServices
	// notify reports an inbox the agent cannot read as an escalation.
	notify *notifications
}

func (ag *agentMode) featureName() string { return "agent" }

// nextLoop moves agent mode on after a stage's loop ended; it reports whether the next
// stage's loop is now to run.
func (ag *agentMode) nextLoop() bool {
	am, err := ag.drv.dir().LoadAgentMode()
	if err != nil || am == nil || am.Stage == "" {
		return false
	}
	st, err := ag.drv.dir().Load()
	if err != nil {
		return false
	}
	if st.RunID == am.RunID && !ag.stageEnded(am, st) {
		return false
	}
	ag.applyAgentStage(am)
	return true
}

// applyAgentStage makes the loop the agent's decided stage.
func (ag *agentMode) applyAgentStage(am *ralph.AgentMode) {
	ag.drv.update(func(s *ralph.State) error { s.ApplyAgentStage(am, ag.drv.dir().AgentPromptPath()); return nil })
	ag.drv.freshLoop()
}

// stageEnded acts on the end of the current stage; it reports whether another stage follows.
func (ag *agentMode) stageEnded(am *ralph.AgentMode, st *ralph.State) bool {
	am.Session.TotalCost = am.CostBase + st.CostUSD
	end := ralph.StageEnd{Outcome: ralph.OutcomeOf(st), Reason: st.ExitReason, OverBudget: am.MaxCost > 0 && am.Session.TotalCost >= am.MaxCost}
	if am.Stage == ralph.StagePlan {
		end.Tasks = ralph.PlanTasks(am.Project, am.Spec)
	}
	step, why := ralph.AfterStage(am.Stage, end, am.DryRun)
	switch step {
	case ralph.StepConstruct:
		ag.agentSay(am, "PLAN: %s generated", words.Plural(end.Tasks, "task"))
		am.Stage = ralph.StageConstruct
		return ag.beginStage(am, st)
	case ralph.StepCommit:
		ag.commitSpec(am, st)
	case ralph.StepFail:
		ag.failSpec(am, why)
	case ralph.StepLost:
		ag.lose(am)
	case ralph.StepPlanned:
		ag.planned(am, end.Tasks)
	case ralph.StepBudget:
		ag.requeue(am)
		am.Session.CurrentSpecID = ""
		ag.agentStops(am, ralph.AgentBudget)
		return false
	case ralph.StepHalt:
		ag.agentSay(am, "Stopped (%s): %s %s goes back to pending", st.ExitReason, am.SpecID, am.Spec)
		ag.requeue(am)
		am.Stage = ""
		ag.drv.recorded(ag.drv.dir().SaveAgentMode(am))
		return false
	}
	return ag.fetchNext(am, st)
}

// fetchNext is FETCH after a spec: the next one, unless a limit or an empty inbox stops the
// agent.
func (ag *agentMode) fetchNext(am *ralph.AgentMode, st *ralph.State) bool {
	say := ag.sayer(am)
	prompt, stop, err := ralph.NextSpec(am, sharedinbox.QueueOf(am), ag.drv.clock().Now(), st.CostUSD, say)
	if err != nil {
		say("FETCH: %v", err)
	}
	if stop != "" {
		ag.agentStops(am, stop)
		return false
	}
	return ag.saveStage(am, prompt)
}

// beginStage fills in the prompt of the spec's next stage.
func (ag *agentMode) beginStage(am *ralph.AgentMode, st *ralph.State) bool {
	prompt, err := ralph.AgentPrompt(am.Project, am.Stage, inbox.Record{ID: am.SpecID, Spec: am.Spec})
	if err != nil {
		ag.failSpec(am, err.Error())
		return ag.fetchNext(am, st)
	}
	return ag.saveStage(am, prompt)
}

// saveStage records the stage as decided, with its prompt, before the loop state moves on.
func (ag *agentMode) saveStage(am *ralph.AgentMode, prompt string) bool {
	ag.drv.recorded(ag.drv.dir().WriteAgentPrompt(prompt))
	am.RunID = uuid.NewString()
	ag.drv.recorded(ag.drv.dir().SaveAgentMode(am))
	return true
}

// commitSpec is COMMIT: all the spec's changes in one commit (tried twice), the spec done.
func (ag *agentMode) commitSpec(am *ralph.AgentMode, st *ralph.State) {
	facts := ralph.SpecFacts{ID: am.SpecID, Spec: am.Spec, Tasks: ralph.PlanTasks(am.Project, am.Spec)}
	if started, err := state.ParseTime(am.SpecStartedAt); err == nil {
		facts.Duration = ag.drv.clock().Now().Sub(started)
	}
	if st.CostIterations > 0 {
		c := st.CostUSD - am.SpecCostBase
		facts.Cost = &c
	}
	// A monitor that died after committing (before it could log it) left the commit made; one
	// that died while its git still ran had that git ended before this monitor began (the
	// Regent's successor ends what it left running).
	hash := git.HeadWithTrailer(am.Project, ralph.SpecIDTrailer, am.SpecID)
	if hash == "" && !ag.stillClaimed(am) {
		return
	}
	var err error
	if hash == "" {
		hash, err = ag.commit(am, ralph.CommitMessage(facts))
	}
	if err != nil {
		ag.failSpec(am, "git commit failed: "+words.OneLine(err.Error()))
		return
	}
	ag.agentSay(am, "COMMIT: %s \"ralph: complete %s\"", hash, ralph.SpecName(am.Spec))
	ag.deliver(am, hash)
	ag.finishInInbox(am, "")
	am.SpecEnded(true)
}

// commit makes the spec's commit, trying twice; an attempt that failed after its commit was
// made (a hook after it, say) is not followed by a second commit.
func (ag *agentMode) commit(am *ralph.AgentMode, message string) (string, error) {
	if am.CommitStarted {
		ag.agentSay(am, "COMMIT: an earlier attempt was cut short; committing again")
	} else {
		ag.agentSay(am, "CONSTRUCT: complete")
		am.CommitStarted = true
		ag.drv.recorded(ag.drv.dir().SaveAgentMode(am))
	}
	hash, err := git.CommitAll(am.Project, message, ralph.AgentKeep)
	if err == nil {
		return hash, nil
	}
	if made := git.HeadWithTrailer(am.Project, ralph.SpecIDTrailer, am.SpecID); made != "" {
		return made, nil
	}
	ag.agentSay(am, "COMMIT: %s; trying again", words.OneLine(err.Error()))
	return git.CommitAll(am.Project, message, ralph.AgentKeep)
}

// failSpec sets a failed spec's changes aside (stashed, or discarded with --on-failure
// reset) and marks it failed with why.
func (ag *agentMode) failSpec(am *ralph.AgentMode, why string) {
	ag.agentSay(am, "FAILED: %s %s: %s", am.SpecID, am.Spec, why)
	msg := "ralph: failed " + ralph.SpecName(am.Spec)
	drop := am.OnFailure == ralph.OnFailureReset
	switch moved, err := git.SetAside(am.Project, msg, ralph.AgentKeep, drop); {
	case err != nil:
		ag.agentSay(am, "could not set the changes aside, they stay in the checkout: %s", words.OneLine(err.Error()))
	case moved && drop:
		ag.agentSay(am, "RESET: the spec's changes were discarded")
	case moved:
		ag.agentSay(am, "STASH: %q (git stash list)", msg)
	}
	ag.claimFailed(am, why)
	ag.finishInInbox(am, why)
	am.SpecEnded(false)
}

// planned is a dry run's spec: planned, its plan kept beside the log, back to pending.
func (ag *agentMode) planned(am *ralph.AgentMode, tasks int) {
	keep := filepath.Join(filepath.Dir(am.Log), "plan-"+ralph.SpecName(am.Spec)+".jsonl")
	if data, err := os.ReadFile(ralph.PlanPath(am.Project)); err == nil && os.WriteFile(keep, data, 0o644) == nil {
		ag.agentSay(am, "PLAN: %s generated (dry run: not executed; plan kept in %s)", words.Plural(tasks, "task"), keep)
	}
	ag.requeue(am)
	am.Planned = append(am.Planned, am.SpecID)
	am.ClearSpec()
}

func (ag *agentMode) finishInInbox(am *ralph.AgentMode, why string) {
	now := ag.drv.clock().Now()
	if err := ralph.FinishSpec(am, why, now); err != nil {
		ag.agentSay(am, "cannot record %s in the inbox: %v; it is recorded once the inbox can be read", am.SpecID, err)
		am.Session.Unrecorded = append(am.Session.Unrecorded, ralph.UnrecordedSpec{ID: am.SpecID, Error: why, At: inbox.Now(now)})
	}
}

// requeue puts the current spec back to pending: it was interrupted, not finished.
func (ag *agentMode) requeue(am *ralph.AgentMode) {
	if am.SpecID == "" {
		return
	}
	if err := ralph.RequeueSpec(am); err != nil {
		ag.agentSay(am, "cannot put %s back to pending: %v", am.SpecID, err)
	}
	ag.releaseClaim(am)
}
