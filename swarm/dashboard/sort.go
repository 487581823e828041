package dashboard

import (
	"fmt"
	"slices"
	"strings"
)

// The order of the dashboard's rows. By default what needs a person comes first: a failed
// worker before one that is blocked or waiting, and those before the ones that just work, so
// the rows to look at are the first seen however many workers run.

// Sort is an order of the rows.
type Sort int

const (
	sortAttention Sort = iota // what needs a person first, then by name
	sortName                  // by name
	sortStarted               // the oldest first, as swarm ls lists them
)

// sortNames are the orders as the footer, the help and --sort name them.
var sortNames = []string{"attention", "name", "started"}

func (s Sort) String() string { return sortNames[s] }

// next is the order the sort key turns to.
func (s Sort) next() Sort { return (s + 1) % Sort(len(sortNames)) }

// ParseSort reads an order by its name (--sort); the error says which names there are.
func ParseSort(name string) (Sort, error) {
	if i := slices.Index(sortNames, strings.ToLower(name)); i >= 0 {
		return Sort(i), nil
	}
	return 0, fmt.Errorf("--sort must be one of %s, not '%s'", strings.Join(sortNames, ", "), name)
}

// attention is how much a worker needs a person; the lower, the sooner it is shown.
type attention int

const (
	attnFailed attention = iota // failed, ended with an error, orphaned
	attnNeeds                   // blocked on a dialog, waiting for a limit, backing off
	attnActive                  // working, starting, idle, running
	attnPaused                  // paused by a person
	attnEnded                   // done, killed, stopped without an error
)

// attentionOf classifies a row by the first word of its state; a word it does not know is
// classified by the state's tone. Where its branch stands in the merge queue, said after the
// state ("done · landed abc1234"), never makes an ended worker look failed: only a branch sent
// back (its tone then asks for a look) brings it forward, to the rows that need a person.
func attentionOf(r Row) attention {
	state, landing, _ := strings.Cut(r.State, " · ")
	a := stateAttention(state, r.Tone)
	if landing != "" && a > attnNeeds && r.Tone == ToneWarn {
		return attnNeeds
	}
	return a
}

// stateAttention is how much a state in words needs a person, tone the row's.
func stateAttention(state string, tone Tone) attention {
	word, _, _ := strings.Cut(state, " ")
	switch strings.TrimSuffix(word, ":") {
	case "failed", "orphaned":
		return attnFailed
	case "stopped":
		// A worker that ended with an error ("stopped (exit 1)") needs a look; a clean end or a
		// loop's reason ("stopped (max_iterations)") does not.
		if code, ok := exitOfState(state); ok && code != "0" {
			return attnFailed
		}
		return attnEnded
	case "blocked", "waiting", "backoff":
		return attnNeeds
	case "working", "starting", "idle", "running":
		return attnActive
	case "paused":
		return attnPaused
	case "done", "killed", "gone":
		return attnEnded
	}
	switch tone {
	case ToneBad:
		return attnFailed
	case ToneWarn:
		return attnNeeds
	case ToneGood:
		return attnEnded
	}
	return attnActive
}

// exitOfState is the exit code a state's words give: "stopped (exit 4)".
func exitOfState(s string) (string, bool) {
	rest, ok := strings.CutPrefix(s, "stopped (exit ")
	return strings.TrimSuffix(rest, ")"), ok
}

// sortRows puts rows (as read: the oldest first) in the order s, in place.
func sortRows(rows []Row, s Sort) {
	switch s {
	case sortAttention:
		slices.SortStableFunc(rows, func(a, b Row) int {
			if d := attentionOf(a) - attentionOf(b); d != 0 {
				return int(d)
			}
			return strings.Compare(a.Name, b.Name)
		})
	case sortName:
		slices.SortStableFunc(rows, func(a, b Row) int { return strings.Compare(a.Name, b.Name) })
	case sortStarted:
		slices.SortStableFunc(rows, func(a, b Row) int { return a.Started.Compare(b.Started) })
	}
}

// shownRows are the rows the filter lets through, in the order s.
func shownRows(all []Row, filter string, s Sort) []Row {
	var out []Row
	for _, r := range all {
		if matches(r, filter) {
			out = append(out, r)
		}
	}
	sortRows(out, s)
	return out
}
