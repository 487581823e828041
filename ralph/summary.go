package ralph

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph/cost"
	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state"
)

// A loop's summary: how it went, from its state, its iteration records and the supervision
// counts. Written to summary.md when the loop ends; `swarm ralph summary` builds it any time.

// Summary is the loop at a glance.
type Summary struct {
	Worker        string        `json:"worker"`
	RunID         string        `json:"runId"`
	Agent         string        `json:"agent"`
	Status        Status        `json:"status"`
	ExitReason    string        `json:"exitReason"`
	Iterations    int           `json:"iterations"`
	MaxIterations int           `json:"maxIterations"`
	Started       string        `json:"started"`
	Ended         string        `json:"ended"`
	DurationMs    int64         `json:"durationMs"`
	Cost          *float64      `json:"cost"`
	Tokens        *cost.Usage   `json:"tokens"`
	Signals       []string      `json:"signals"`
	Checks        []CheckResult `json:"checks"`
	Commits       []string      `json:"commits"`
	Rollbacks     int           `json:"rollbacks"`
	Failures      int           `json:"failures"`
	// Landing is where the loop's branch stands in swarm land's queue, in words; empty when it
	// was never offered. The loop does not know it: the command that shows the summary adds it.
	Landing string `json:"landing,omitempty"`
}

// SummaryPath is where the summary of a finished loop is kept.
func (d Dir) SummaryPath() string { return filepath.Join(d.Path, "summary.md") }

// BuildSummary puts a loop's figures together as of now.
func BuildSummary(name string, st *State, recs []IterationRecord, rollbacks int, now time.Time) Summary {
	s := Summary{Worker: name, RunID: st.RunID, Agent: st.Agent, Status: st.Status, ExitReason: st.ExitReason,
		Iterations: st.CurrentIteration, MaxIterations: st.MaxIterations, Started: rfc3339(st.Started),
		Ended: rfc3339(st.Ended), DurationMs: st.RunningTime(now).Milliseconds(), Signals: st.Signals,
		Checks: st.LastChecks, Rollbacks: rollbacks, Failures: st.TotalFailures, Commits: []string{}}
	var usd float64
	var tokens cost.Usage
	costKnown, tokensKnown := false, false
	for _, r := range recs {
		if r.RunID != st.RunID && st.RunID != "" {
			continue
		}
		s.Commits = append(s.Commits, r.Commits...)
		if r.Cost != nil {
			usd, costKnown = usd+*r.Cost, true
		}
		if r.Tokens != nil {
			tokens.Add(*r.Tokens)
			tokensKnown = true
		}
		if s.Agent == "" {
			s.Agent = r.Agent
		}
	}
	if costKnown {
		s.Cost = &usd
	}
	if tokensKnown {
		s.Tokens = &tokens
	}
	if s.Signals == nil {
		s.Signals = []string{}
	}
	if s.Checks == nil {
		s.Checks = []CheckResult{}
	}
	return s
}

// rfc3339 is a stored time in RFC 3339 with its zone; "" when not set.
func rfc3339(stored string) string {
	t := ParseTime(stored)
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}

// Markdown renders the summary for people (summary.md, `swarm ralph summary`).
func (s Summary) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Loop summary: %s\n\n", s.Worker)
	row := func(k, v string) { fmt.Fprintf(&b, "- **%s:** %s\n", k, v) }
	status := s.Status.String()
	if word, _, ended := EndWords(s.Status, s.ExitReason); ended {
		// The word as ls says it; the summary keeps how, as in "done (done_pattern)".
		status = word
		if s.ExitReason != "" && s.ExitReason != word {
			status += " (" + s.ExitReason + ")"
		}
	} else if s.ExitReason != "" {
		status += " (" + s.ExitReason + ")"
	}
	row("Status", status)
	if s.Landing != "" {
		row("Landing", s.Landing)
	}
	row("Iterations", fmt.Sprintf("%d/%d", s.Iterations, s.MaxIterations))
	row("Duration", words.Duration(time.Duration(s.DurationMs)*time.Millisecond))
	row("Cost", s.costText())
	if s.Agent != "" {
		row("Agent", s.Agent)
	}
	row("Signals", orNone(strings.Join(s.Signals, ", ")))
	row("Failures", fmt.Sprint(s.Failures))
	row("Rollbacks", fmt.Sprint(s.Rollbacks))
	if s.RunID != "" {
		row("Run", s.RunID)
	}
	b.WriteString("\n## Last checks\n\n")
	if len(s.Checks) == 0 {
		b.WriteString("none\n")
	}
	for _, c := range s.Checks {
		mark := "FAIL"
		if c.Passed {
			mark = "PASS"
		}
		fmt.Fprintf(&b, "- %s `%s`: %s\n", mark, c.Name, c.Message)
	}
	fmt.Fprintf(&b, "\n## Commits (%d)\n\n", len(s.Commits))
	if len(s.Commits) == 0 {
		b.WriteString("none\n")
	}
	for _, c := range s.Commits {
		fmt.Fprintf(&b, "- %s\n", ShortCommit(c))
	}
	return b.String()
}

func (s Summary) costText() string {
	if s.Cost == nil {
		return "unknown"
	}
	return fmt.Sprintf("$%.4f", *s.Cost)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// LoadSummary builds the loop's summary from its files as they are now.
func (d Dir) LoadSummary(name string, now time.Time) (Summary, error) {
	st, err := d.Load()
	if err != nil {
		return Summary{}, err
	}
	recs, _, err := d.ReadIterations()
	if err != nil {
		return Summary{}, err
	}
	return BuildSummary(name, st, recs, d.LoadSupervision().Rollbacks, now), nil
}

// WriteSummary writes summary.md for the loop as it is now.
func (d Dir) WriteSummary(now time.Time) error {
	st, err := d.Load()
	if err != nil {
		return err
	}
	s, err := d.LoadSummary(st.WorkerName, now)
	if err != nil {
		return err
	}
	return state.WriteFileAtomic(d.SummaryPath(), []byte(s.Markdown()), 0o600)
}

// CostSoFar is what this run's iterations cost so far; nil while no cost is known.
func (d Dir) CostSoFar() *float64 {
	s, err := d.LoadSummary("", time.Now())
	if err != nil {
		return nil
	}
	return s.Cost
}

// ShortCommit abbreviates a commit id for messages, as git log --oneline does.
func ShortCommit(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
