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

// loopEnd is how a loop ended: done, or stopped or failed for a reason.
type loopEnd struct {
	word   string // done, stopped or failed
	reason string // the loop's exit reason; "" for done
}

// String is the short form, for tables: "done", "stopped (max_iterations)".
func (e loopEnd) String() string {
	if e.reason == "" {
		return e.word
	}
	return e.word + " (" + e.reason + ")"
}

// inWords is the form inside a sentence: "loop done", "loop stopped: max_iterations".
func (e loopEnd) inWords() string {
	if e.reason == "" {
		return "loop " + e.word
	}
	return "loop " + e.word + ": " + e.reason
}

// describeLoopEnd is how a loop with this status and exit reason ended; ok is false for a
// loop that has not ended.
func describeLoopEnd(status ralph.Status, reason string) (loopEnd, bool) {
	switch {
	case status == ralph.StatusStopped && doneReasons[reason]:
		return loopEnd{word: "done"}, true
	case status != ralph.StatusStopped && status != ralph.StatusFailed:
		return loopEnd{}, false
	}
	return loopEnd{word: string(status), reason: reason}, true
}

// loopEnding is how a loop worker that no longer runs ended, from its loop's state: nil for a
// worker that runs, is no loop's, or whose loop has not ended (or cannot be read).
func loopEnding(e *env, w *state.Worker) *loopEnd {
	if e.dir == nil || w.Status == state.StatusRunning || w.Metadata["ralph"] != true {
		return nil
	}
	st, err := ralph.DirFor(e.dir, w.Name).Load()
	if err != nil {
		return nil
	}
	if end, ok := describeLoopEnd(st.Status, st.ExitReason); ok {
		return &end
	}
	return nil
}
