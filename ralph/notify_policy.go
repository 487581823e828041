package ralph

import (
	"fmt"
	"strings"
)

// Which decisions people hear about: a pure function of the decision, like the decisions
// themselves. Where they hear it is the driver's business (ralph/driver/notify_send.go).

// Notice is one event to notify of, and why, in words.
type Notice struct {
	Event  string
	Reason string
}

// NoticeFacts is what Notices needs to know beyond the decision.
type NoticeFacts struct {
	// MoreSteps: the loop is a chain step with steps after it, so a step that finished is
	// not the end of the work (the chain's last step is).
	MoreSteps bool
	// LastFailure is the loop's last failed iteration when it is the one the decision is
	// about: a failed loop is told with the agent's last word (the reason it gave, often).
	LastFailure *Failure
}

// endReasons say in words why a loop ended, for its done or stopped notice. Only the first
// three are done (EndWords): running out of iterations says nothing of the work, and an agent
// that asks to wait without a restart has not finished it either.
var endReasons = map[string]string{
	"done_file":            "the DONE file appeared",
	"done_pattern":         "the done pattern matched",
	"complete":             "the completion checkers passed",
	"max_iterations":       "iteration limit reached",
	"wait_without_restart": "the agent asked to wait without a restart",
}

// Notices are the events in a decision that are worth telling someone about.
func Notices(d Decision, f NoticeFacts) []Notice {
	var out []Notice
	var reverted []string
	for _, e := range d.Events {
		switch e.Kind {
		case "LIMIT":
			out = append(out, Notice{NotifyUsageLimit, e.Text})
		case "RESURRECT":
			out = append(out, Notice{NotifyResurrected, e.Text})
		case "ROLLBACK":
			reverted = append(reverted, strings.TrimPrefix(e.Text, "reverted "))
		}
	}
	if len(reverted) > 0 {
		out = append(out, Notice{NotifyRollback, "tests failed; reverted " + strings.Join(reverted, ", ")})
	}
	if n, ok := endNotice(d, f); ok {
		out = append(out, n)
	}
	return out
}

// endNotice is the notice of a decision that ends the loop, if it is one people hear about.
func endNotice(d Decision, f NoticeFacts) (Notice, bool) {
	if !d.Ended {
		return Notice{}, false
	}
	switch {
	case d.Status == StatusFailed:
		reason := d.Escalate
		if reason == "" {
			reason = d.ExitReason
		}
		if last := f.LastFailure.LastLine(); last != "" {
			reason += ": " + last
		}
		return Notice{NotifyFailed, reason}, true
	case d.ExitReason == "stagnated":
		return Notice{NotifyStagnated, eventText(d, "STAGNATED", "no git changes")}, true
	case d.ExitReason == "budget_exceeded":
		return Notice{NotifyBudget, d.Escalate}, true
	}
	word, _, _ := EndWords(d.Status, d.ExitReason)
	if word == EndKilled || f.MoreSteps {
		// A person who ended the loop knows; a chain step that ended starts the next one.
		return Notice{}, false
	}
	why, ok := endReasons[d.ExitReason]
	if !ok {
		why = "the loop stopped"
	}
	event := NotifyStopped
	if word == EndDone {
		event = NotifyDone
	}
	if d.ExitReason != "" {
		why = fmt.Sprintf("%s (%s)", why, d.ExitReason)
	}
	return Notice{event, why}, true
}

// eventText is the text of the decision's first event of a kind, or else def.
func eventText(d Decision, kind, def string) string {
	for _, e := range d.Events {
		if e.Kind == kind {
			return e.Text
		}
	}
	return def
}
