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
	// stopped, or ended (its turn over, quiet, its context full, a claim the checkers refuted);
	// Reason says more, and Detail a failed agent's last line.
	IterationEnded = "iteration.ended"

	LoopDone     = "loop.done"     // Reason: its exit reason (done_file, marker, complete, ...)
	LoopFailed   = "loop.failed"   // Reason: why
	LoopStopped  = "loop.stopped"  // ended otherwise (max_iterations, killed, stagnated, ...)
	LoopPaused   = "loop.paused"   // Reason: paused (by a person), signal
	LoopResumed  = "loop.resumed"  // Reason: what it was (paused, waiting, stopped, failed)
	LoopParked   = "loop.parked"   // waiting on a usage limit (Detail: until when; Reason: what the agent said)
	LoopUnparked = "loop.unparked" // the limit's wait is over

	GatePassed     = "gate.passed"      // the test gate after an iteration
	GateFailed     = "gate.failed"      //
	GateRolledBack = "gate.rolled_back" // Commit: the newest commit reverted (Detail: all of them)
	ChecksPassed   = "checks.passed"    // the checkers of a claim of done
	ChecksFailed   = "checks.failed"    //

	PersonNeeded = "person.needed" // What: permission, dialog, unknown screen; Detail: which
	// PersonAnswered: By cli or web (a person answered through swarm; Detail: yes or no, then
	// the need), agent (it went on, or its iteration ended), swarm (the loop paused or ended);
	// What, Detail: the need.
	PersonAnswered = "person.answered"

	CostBudget = "cost.budget" // the loop's cost crossed its budget (CostUSD)

	Landed   = "land.landed"    // Branch onto its target (Detail) at Commit
	SentBack = "land.sent_back" // How: needs_rebase, breaks_tests; Reason: why it did not land

	HostUnreachable = "host.unreachable" // Detail: the host tried; Reason: why it did not answer
	HostBack        = "host.back"        // Detail: the host that answers again
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
