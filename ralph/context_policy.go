package ralph

import "fmt"

// Watching how full the agent's context window is (--max-context PCT): at PCT the agent is
// asked, once per iteration, to wrap up; at PCT+15, or when it starts compacting its
// conversation, the iteration ends and the next one starts with a fresh context.

// ContextReading is what was seen of the agent's context, kept in the loop state.
type ContextReading struct {
	Used   int  // percent of the context window in use
	Nudged bool // the wrap-up nudge was sent
}

// ContextFacts is what one look at the screen found.
type ContextFacts struct {
	Iteration  int
	Max        int  // --max-context; 0 turns the watch off
	Used       int  // percent in use, when Seen
	Seen       bool // the screen shows the context use
	Compacting bool // the screen shows a compaction under way
	Nudged     bool // the nudge went out earlier this iteration
}

// ContextAct is what the driver does about the context.
type ContextAct int

// The context watch's acts.
const (
	ContextNothing ContextAct = iota
	ContextNudge              // type the nudge into the agent
	ContextEnd                // end the iteration (with the Ending returned)
)

// contextGrace is how far past the limit an agent that was asked to wrap up may go.
const contextGrace = 15

// ContextCheck decides what the agent's context use calls for.
func ContextCheck(f ContextFacts) (ContextAct, Ending, Decision) {
	if f.Max <= 0 {
		return ContextNothing, 0, Decision{}
	}
	if f.Compacting {
		return ContextEnd, EndCompaction, Decision{}
	}
	if !f.Seen {
		return ContextNothing, 0, Decision{}
	}
	d := Decision{Context: &ContextReading{Used: f.Used}}
	switch {
	case f.Used >= f.Max+contextGrace:
		return ContextEnd, EndContextLimit, d
	case f.Used >= f.Max && !f.Nudged:
		d.Context.Nudged = true
		d.Say("context at %d%% (--max-context %d%%): asking the agent to wrap up", f.Used, f.Max)
		d.event("WARN", "iteration %d context nudge sent at %d%%", f.Iteration, f.Used)
		return ContextNudge, 0, d
	}
	return ContextNothing, 0, d
}

// ContextNudgeText is what the agent is told when its context is nearly full.
func ContextNudgeText(used int) string {
	return fmt.Sprintf("Your context window is %d%% full. Wrap up now: commit your work, write down "+
		"what is left for the next iteration, and exit.", used)
}
