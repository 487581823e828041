package eventlog

import (
	"strings"
	"time"
	"unicode/utf8"
)

// The kinds of events: one schema, a word per thing that happens.
const (
	WorkerSpawned = "worker.spawned" // a worker started (Detail: its command's program)
	WorkerEnded   = "worker.ended"   // its program ended or it was killed (How: exited, killed; Reason: exit N)

	IterationStarted = "iteration.started"
	// IterationEnded says how in How: done, failed, timeout, hang, api_error, limit, killed,
	// stopped; Reason says more.
	IterationEnded = "iteration.ended"

	LoopDone     = "loop.done"     // Reason: its exit reason (done_file, marker, complete, ...)
	LoopFailed   = "loop.failed"   // Reason: why
	LoopStopped  = "loop.stopped"  // ended otherwise (max_iterations, killed, stagnated, ...)
	LoopPaused   = "loop.paused"   //
	LoopResumed  = "loop.resumed"  //
	LoopParked   = "loop.parked"   // waiting on a usage limit (Detail: until when)
	LoopUnparked = "loop.unparked" //

	GatePassed     = "gate.passed"      // the test gate after an iteration
	GateFailed     = "gate.failed"      //
	GateRolledBack = "gate.rolled_back" // Commit: where the branch went back to
	ChecksPassed   = "checks.passed"    // the checkers of a claim of done
	ChecksFailed   = "checks.failed"    //

	PersonNeeded   = "person.needed"   // What: permission, dialog, question; Detail: which
	PersonAnswered = "person.answered" // By: who; Detail: the answer

	CostBudget = "cost.budget" // the loop's cost crossed its budget (CostUSD)

	Landed   = "land.landed"    // Branch onto its target at Commit
	SentBack = "land.sent_back" // Reason: why it did not land

	HostUnreachable = "host.unreachable"
	HostBack        = "host.back"
)

// Event is one thing that happened. ID and Time are given by Append; Host is set by whoever
// merges the logs of several machines.
type Event struct {
	ID        int64     `json:"id"`
	Time      time.Time `json:"time"`
	Kind      string    `json:"kind"`
	Host      string    `json:"host,omitempty"`
	Worker    string    `json:"worker,omitempty"`
	Iteration int       `json:"iteration,omitempty"`
	How       string    `json:"how,omitempty"`
	Reason    string    `json:"reason,omitempty"`
	What      string    `json:"what,omitempty"`
	Detail    string    `json:"detail,omitempty"`
	By        string    `json:"by,omitempty"`
	CostUSD   *float64  `json:"cost_usd,omitempty"`
	Commit    string    `json:"commit,omitempty"`
	Branch    string    `json:"branch,omitempty"`
}

// MaxText bounds each text of an event: what an agent printed can reach it (a dialog's
// words, a failure's reason), and one event must never take the log's room.
const MaxText = 1024

// bounded is e with every text on one line, valid UTF-8 and at most MaxText bytes.
func bounded(e Event) Event {
	for _, s := range []*string{&e.Kind, &e.Host, &e.Worker, &e.How, &e.Reason, &e.What, &e.Detail, &e.By, &e.Commit, &e.Branch} {
		*s = clip(*s)
	}
	return e
}

func clip(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= MaxText {
		return s
	}
	cut := MaxText - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
