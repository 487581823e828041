package swarm

import (
	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// How a loop worker reads once its loop has ended. The loop ends its own agent with a signal,
// so the worker's exit code (143, 137) says nothing; what the loop ended on does: a loop that
// finished its work is done, never "stopped (exit 143)".

// doneReasons are the loop endings that mean the work is finished.
var doneReasons = map[string]bool{"done_pattern": true, "done_file": true, "complete": true}

// describeLoopEnd is how an ended loop reads: done, stopped (REASON) or failed (REASON); ok
// is false for a loop that has not ended.
func describeLoopEnd(status ralph.Status, reason string) (string, bool) {
	switch {
	case status == ralph.StatusStopped && doneReasons[reason]:
		return "done", true
	case status != ralph.StatusStopped && status != ralph.StatusFailed:
		return "", false
	case reason == "":
		return string(status), true
	}
	return string(status) + " (" + reason + ")", true
}

// loopEnding is how a loop worker that no longer runs ended, from its loop's state: "" for a
// worker that runs, is no loop's, or whose loop has not ended (or cannot be read).
func loopEnding(e *env, w *state.Worker) string {
	if e.dir == nil || w.Status == state.StatusRunning || w.Metadata["ralph"] != true {
		return ""
	}
	st, err := ralph.DirFor(e.dir, w.Name).Load()
	if err != nil {
		return ""
	}
	text, _ := describeLoopEnd(st.Status, st.ExitReason)
	return text
}
