package report

import "github.com/swarm-dev/swarm/swarm/land"

// Sum adds up the workers, and counts the hosts that did not answer.
func Sum(workers []Worker, hosts []Host) Totals {
	var t Totals
	for _, w := range workers {
		t.Workers++
		if w.Loop {
			t.Loops++
		}
		t.Outcomes.add(w.Outcomes)
		t.Time.WorkingS += w.Time.WorkingS
		t.Time.Waiting.add(w.Time.Waiting)
		if w.CostUSD != nil {
			t.CostUSD = addCost(t.CostUSD, *w.CostUSD)
		}
		if w.Tokens != nil {
			t.Tokens = addTokens(t.Tokens, *w.Tokens)
		}
		t.Commits += w.Commits
		if l := w.Landing; l != nil {
			switch l.State {
			case land.Landed:
				t.Landed++
			case land.NeedsRebase, land.BreaksTests:
				t.SentBack++
			}
		}
		if w.NeedsPerson != nil {
			t.NeedsPerson++
		}
	}
	for _, h := range hosts {
		if !h.Answered {
			t.Unreachable++
		}
	}
	return t
}
