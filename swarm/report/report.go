package report

import "github.com/swarm-dev/swarm/ralph/cost"

// The published shape of `swarm report --format json` (swarm guide commands documents it).
// Times are RFC 3339, durations whole seconds, money US dollars.

// Report is the whole report.
type Report struct {
	Since string `json:"since"` // the window's start
	Until string `json:"until"` // when the report was made
	// Workers are those with something in the window (an iteration, a landing, a start or an
	// end), running now or needing a person now, in name order, this machine's first.
	Workers []Worker `json:"workers"`
	Totals  Totals   `json:"totals"`
	// Hosts are the other machines asked, and whether they answered.
	Hosts []Host `json:"hosts,omitempty"`
	// Damaged are records that could not be read whole; what could be read is reported.
	Damaged []Damage `json:"damaged,omitempty"`
}

// Worker is one worker's part of the report.
type Worker struct {
	Name string `json:"name"`
	Host string `json:"host"` // "local" for this machine
	// State is the word ls says (running, waiting, paused, done, killed, stopped, failed, ...),
	// StateDetail what qualifies it (max_iterations, exit 4).
	State       string `json:"state"`
	StateDetail string `json:"state_detail,omitempty"`
	Loop        bool   `json:"loop"` // a ralph loop; a plain worker has no iterations
	Agent       string `json:"agent,omitempty"`
	// Iterations are the loop's iterations that ended in the window, oldest first.
	Iterations []Iteration `json:"iterations"`
	Outcomes   Outcomes    `json:"outcomes"`
	// Failures are the reasons its iterations failed, timed out or hung, the most frequent first.
	Failures []Reason `json:"failures,omitempty"`
	Time     Time     `json:"time"`
	// CostUSD and Tokens are what the window's iterations used; null when no iteration's use
	// is known (not a loop, or an agent whose use swarm cannot read).
	CostUSD *float64    `json:"cost_usd"`
	Tokens  *cost.Usage `json:"tokens"`
	Commits int         `json:"commits"` // commits its iterations made (those rolled back included)
	Checks  Checks      `json:"checks"`
	// Landing is where its branch stands in swarm land's queue, when that changed in the window.
	Landing *Landing `json:"landing,omitempty"`
	// NeedsPerson is set while its agent waits for a person: a dialog, a permission prompt or
	// a screen swarm does not know; What and Since are those of ls's needs_person.
	NeedsPerson *NeedsPerson `json:"needs_person,omitempty"`
}

// Iteration is one iteration of a loop.
type Iteration struct {
	N       int    `json:"n"`
	Started string `json:"started,omitempty"`
	Ended   string `json:"ended"`
	// Outcome is how it ended (see Outcomes), Reason what says more: "exit 1", the API error,
	// "ready timeout", the check that failed.
	Outcome   string   `json:"outcome"`
	Reason    string   `json:"reason,omitempty"`
	DurationS int64    `json:"duration_s"`
	Waited    Waits    `json:"waited"` // before it (backoff, usage limit) and in it (a person)
	CostUSD   *float64 `json:"cost_usd"`
	Commits   int      `json:"commits"`
}

// The outcomes of an iteration, one word each.
const (
	OutcomeDone         = "done"          // it claimed to be done and the claim held
	OutcomeEnded        = "ended"         // it ended as iterations do (exit 0, quiet, turn ended, context full)
	OutcomeFailed       = "failed"        // the agent failed (exit code, API error)
	OutcomeTimedOut     = "timed_out"     // it ran out of time (iteration timeout, never ready)
	OutcomeHung         = "hung"          // no progress on screen for the hang timeout
	OutcomeRolledBack   = "rolled_back"   // the test gate reverted its commits
	OutcomeChecksFailed = "checks_failed" // it claimed to be done and a checker said no
	OutcomeUsageLimit   = "usage_limit"   // the agent's usage limit was spent
	OutcomeBudget       = "budget"        // the loop's --max-cost was spent
	OutcomeStopped      = "stopped"       // a person stopped the loop while it worked
)

// Outcomes counts iterations by outcome.
type Outcomes struct {
	Total        int `json:"total"`
	Done         int `json:"done"`
	Ended        int `json:"ended"`
	Failed       int `json:"failed"`
	TimedOut     int `json:"timed_out"`
	Hung         int `json:"hung"`
	RolledBack   int `json:"rolled_back"`
	ChecksFailed int `json:"checks_failed"`
	UsageLimit   int `json:"usage_limit"`
	Budget       int `json:"budget"`
	Stopped      int `json:"stopped"`
}

// Reason is one reason iterations failed, and how many times.
type Reason struct {
	Outcome string `json:"outcome"`
	Reason  string `json:"reason"`
	Count   int    `json:"count"`
}

// Waits are seconds waited rather than worked, by what for.
type Waits struct {
	BackoffS    int64 `json:"backoff_s"`     // the retry delay after failures
	UsageLimitS int64 `json:"usage_limit_s"` // a usage limit's reset
	PersonS     int64 `json:"person_s"`      // a dialog or a permission prompt, until answered
}

// Time is a worker's time in the window: working (its agents' iterations, less what they
// waited for a person) against waiting.
type Time struct {
	WorkingS int64 `json:"working_s"`
	Waiting  Waits `json:"waiting"`
}

// Checks counts the iterations whose completion checkers ran, and what the last failing one said.
type Checks struct {
	Ran    int      `json:"ran"`
	Passed int      `json:"passed"`
	Failed int      `json:"failed"`
	Last   []string `json:"last_failed,omitempty"` // "name: message" of the last iteration whose checks failed
}

// Landing is a worker's landing record as the report shows it.
type Landing struct {
	State     string   `json:"state"` // queued, testing, landed, needs_rebase, breaks_tests
	Target    string   `json:"target"`
	Commit    string   `json:"commit,omitempty"`
	Reason    string   `json:"reason,omitempty"`
	Conflicts []string `json:"conflicts,omitempty"`
	// SentBack: its loop was resumed and told what failed (land --send-back).
	SentBack bool   `json:"sent_back"`
	Updated  string `json:"updated,omitempty"`
}

// NeedsPerson is what an agent waits for a person for.
type NeedsPerson struct {
	Kind string `json:"kind"` // dialog, permission or unknown screen
	// What is the need in the words of ls's needs_person: "dialog: trust-folder".
	What  string `json:"what"`
	Since string `json:"since,omitempty"`
}

// Totals add up the workers.
type Totals struct {
	Workers     int         `json:"workers"`
	Loops       int         `json:"loops"`
	Outcomes    Outcomes    `json:"outcomes"`
	Time        Time        `json:"time"`
	CostUSD     *float64    `json:"cost_usd"`
	Tokens      *cost.Usage `json:"tokens"`
	Commits     int         `json:"commits"`
	Landed      int         `json:"landed"`
	SentBack    int         `json:"sent_back"` // branches that did not land (needs rebase, breaks tests)
	NeedsPerson int         `json:"needs_person"`
	Unreachable int         `json:"unreachable"` // hosts that did not answer
}

// Host is another machine asked for its report.
type Host struct {
	Name     string `json:"name"`
	Answered bool   `json:"answered"`
	Problem  string `json:"problem,omitempty"`
}

// Damage is a record that could not be read whole.
type Damage struct {
	Host    string `json:"host"`
	Worker  string `json:"worker"`
	Problem string `json:"problem"`
}
