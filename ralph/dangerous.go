package ralph

import (
	"strconv"

	"github.com/swarm-dev/swarm/ralph/config"
)

// The stall that skipping permissions does not skip. Run with --dangerously-skip-permissions,
// Claude Code still asks before some commands it cannot check (an rm whose target is a
// command's output or a variable that may be empty, a shell -c script that runs rm, ...):
// "Dangerous rm operation ... Do you want to proceed?". An unattended worker would wait there
// (2.1.332 refuses by itself after a minute and a half, the loop's time lost all the same).
// Its PermissionRequest hook tells it: the request is asked in the bypassPermissions mode.
// The loop names it as a person's need and notifies, and its setting (--on-dangerous,
// on_dangerous) decides: ask leaves it to a person, no refuses it at once, as `swarm answer`
// would, the answer recorded as the loop's own (by "swarm").

// ModeBypass is the permission mode of --dangerously-skip-permissions, as hooks are told it.
const ModeBypass = "bypassPermissions"

// AnsweredBySwarm is who answered a permission the loop's own setting answered.
const AnsweredBySwarm = "swarm"

// DangerousRefusal is what the loop answers with --on-dangerous no: the model is told why,
// so that it finds another way rather than asking again.
var DangerousRefusal = Answer{Answer: AnswerNo, By: AnsweredBySwarm,
	Message: "This loop refuses commands that need a person's approval though permissions are skipped. " +
		"Do it another way: name literal paths, without command substitutions or variables that may be empty."}

// SkipNotSkipped reports whether e is a permission asked though permissions are skipped.
func (e AgentEvent) SkipNotSkipped() bool {
	return e.Event == EventPermissionRequest && e.Mode == ModeBypass
}

// RefusesDangerous reports whether the loop answers e no by itself: a permission asked though
// permissions are skipped, in a loop set to refuse those.
func (st *State) RefusesDangerous(e AgentEvent) bool {
	return st.OnDangerous == config.DangerousNo && e.SkipNotSkipped()
}

// dangerousMark ends the name of a permission asked though permissions are skipped; the views
// name it a NeedDangerous.
const dangerousMark = " (asked though permissions are skipped)"

// DangerousWhat is how such a permission is named: the tool, and that skipping did not skip it.
func DangerousWhat(e AgentEvent) string { return e.Message + dangerousMark }

// AnswerWords are an answer as its event tells it, as `swarm answer` tells one: yes, no, or
// no, "MESSAGE".
func AnswerWords(a Answer) string {
	if a.Message == "" {
		return a.Answer
	}
	return a.Answer + ", " + strconv.Quote(a.Message)
}
