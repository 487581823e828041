package swarm

import (
	"fmt"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
)

// The words swarm says a worker or a loop is in, in ls, status, ralph ls, ralph status, the
// dashboard, wait and their JSON; made here and nowhere else, so one situation reads the
// same everywhere. A loop ends its own agent with a signal, so a loop worker's exit code
// (143, 137) says nothing: what the loop did does.
const (
	wordRunning  = "running"        // the worker's process runs; for a loop: it is driven
	wordBlocked  = "blocked"        // the loop runs but needs a person: a dialog, a permission, an unknown screen
	wordWaiting  = "waiting"        // the loop waits out a usage limit, or for its tmux server; no agent running
	wordPaused   = "paused"         // the loop was paused (swarm ralph pause, a signal); resume goes on
	wordDone     = ralph.EndDone    // the loop finished its work (done pattern, DONE file, checks passed)
	wordKilled   = ralph.EndKilled  // the loop was ended by swarm ralph stop or swarm kill
	wordStopped  = ralph.EndStopped // a loop stopped for another reason, or a worker that is no loop ended
	wordFailed   = ralph.EndFailed  // the loop gave up: failures, a crashing monitor, an unreadable inbox
	wordOrphaned = "orphaned"       // the worker's window or group is gone, processes it started run on
	wordGone     = "gone"           // a loop whose worker has no record any more
)

// stateWord is a state in words: the word and what qualifies it ("exit 4", "max_iterations").
type stateWord struct {
	word   string
	detail string
}

// String is the short form, for tables: "done", "stopped (max_iterations)", "stopped (exit 4)".
func (s stateWord) String() string {
	if s.detail == "" {
		return s.word
	}
	return s.word + " (" + s.detail + ")"
}

// inWords is an ended loop's state inside a sentence: "loop done", "loop stopped: max_iterations".
func (s stateWord) inWords() string {
	if s.detail == "" {
		return "loop " + s.word
	}
	return "loop " + s.word + ": " + s.detail
}

// stateOf is the state of a worker (its status, "" when it has no record, and exit code) and
// of its loop (nil for a worker that is no loop's).
func stateOf(status string, exit *int, loop *ralph.State) stateWord {
	if status == state.StatusOrphaned {
		return stateWord{word: wordOrphaned}
	}
	if loop != nil {
		return loopStateWord(status, loop)
	}
	switch {
	case status == "":
		return stateWord{word: wordGone}
	case status == state.StatusRunning:
		return stateWord{word: wordRunning}
	case exit != nil:
		return stateWord{word: wordStopped, detail: fmt.Sprintf("exit %d", *exit)}
	}
	return stateWord{word: wordStopped}
}

// loopStateWord is the state of a loop whose worker has this status.
func loopStateWord(status string, loop *ralph.State) stateWord {
	switch loop.Status {
	case ralph.StatusPaused:
		if status == state.StatusRunning {
			// Paused after the current iteration, which is still under way.
			return stateWord{word: wordPaused, detail: "finishing iteration"}
		}
		return stateWord{word: wordPaused}
	case ralph.StatusWaiting:
		return stateWord{word: wordWaiting}
	}
	if word, detail, ended := ralph.EndWords(loop.Status, loop.ExitReason); ended {
		return stateWord{word: word, detail: detail}
	}
	if loop.TmuxSilentSince != "" {
		// Between two agents: the next one cannot start until the tmux server answers.
		return stateWord{word: wordWaiting, detail: "tmux server not answering"}
	}
	if status != state.StatusRunning && status != "" {
		// The loop's agent keeps its window from one iteration to the next: a loop on record as
		// running whose worker has ended is one whose monitor could not record the end (a full
		// disk, a crash); what the worker did is what is known.
		return stateOf(status, nil, nil)
	}
	if n := needOf(status, loop); n != nil {
		return stateWord{word: wordBlocked, detail: n.What}
	}
	return stateWord{word: wordRunning}
}

// needJSON is what a loop needs a person for, and since when: the "needs_person" of the JSON
// of ls, status, ralph ls and ralph status, which a script can poll.
type needJSON struct {
	// What is the need in words: "dialog: trust-folder", "permission: Bash(rm -rf build)",
	// "unknown screen"; the state's detail (`blocked (dialog: trust-folder)`) says the same.
	What string `json:"what"`
	// Since is when the loop came to need a person (RFC 3339); absent when it was not recorded
	// (a loop started by an older swarm).
	Since string `json:"since,omitempty"`
}

// maxNeedText bounds the agent's own words in a need: it asks permission in words of its own.
const maxNeedText = 60

// needOf is what a loop needs a person for; nil when it needs none, or does not run (a worker
// status of "" stands for a worker not looked at).
func needOf(status string, loop *ralph.State) *needJSON {
	if loop == nil || status != state.StatusRunning && status != "" {
		return nil
	}
	need, ok := loop.PersonNeed()
	if !ok {
		return nil
	}
	need.What = screen.Printable(need.What, maxNeedText) // the agent's words, made safe and short
	n := &needJSON{What: need.Words()}
	if !need.Since.IsZero() {
		n.Since = need.Since.Format(time.RFC3339)
	}
	return n
}

// ended reports whether the state is an end: the loop will not go on by itself.
func (s stateWord) ended() bool {
	switch s.word {
	case wordDone, wordKilled, wordStopped, wordFailed:
		return true
	}
	return false
}

// workerLoop is the state of a worker's loop: nil for a worker that is no loop's, or whose
// loop state cannot be read.
func workerLoop(e *env, w *state.Worker) *ralph.State {
	if e.Machine == nil || w.Metadata["ralph"] != true {
		return nil
	}
	return e.LoopState(w.Name)
}

// workerState is a worker's state as it is now.
func workerState(e *env, w *state.Worker) stateWord {
	return stateOf(w.Status, w.ExitCode, workerLoop(e, w))
}
