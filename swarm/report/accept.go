package report

import (
	"encoding/json"
	"fmt"

	"github.com/swarm-dev/swarm/swarm/worker"
)

// A host's report is untrusted: another machine's swarm wrote it, from its agents' words.

// MaxReply is the most of a host's report that is read; a longer one is refused.
const MaxReply = 16 << 20

// maxText is the longest text field kept from a host's report (or from a host's answer of
// another kind, see Cut); longer ones are cut.
const maxText = 1000

// Accept takes in a host's report (its `swarm report --format json`): every worker must have a
// valid worker name, and is said to be host's; text is cut to maxText and figures below zero
// to zero. Its totals and hosts are not taken: the totals are made again from its workers.
func Accept(host string, data []byte) (Report, error) {
	if len(data) > MaxReply {
		return Report{}, fmt.Errorf("its report is larger than %d MB", MaxReply>>20)
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return Report{}, fmt.Errorf("its report cannot be read: %v", err)
	}
	for i := range r.Workers {
		w := &r.Workers[i]
		if err := worker.ValidateName(w.Name); err != nil {
			return Report{}, fmt.Errorf("its report names a worker badly: %v", err)
		}
		w.Host = host
		bound(w)
	}
	for i := range r.Damaged {
		d := &r.Damaged[i]
		if worker.ValidateName(d.Worker) != nil {
			d.Worker = "?"
		}
		d.Host, d.Problem = host, Cut(d.Problem)
	}
	r.Totals, r.Hosts = Totals{}, nil
	return r, nil
}

// bound cuts a host's worker's text to maxText and its figures to zero and above.
func bound(w *Worker) {
	for _, s := range []*string{&w.State, &w.StateDetail, &w.Agent} {
		*s = Cut(*s)
	}
	for i := range w.Iterations {
		it := &w.Iterations[i]
		it.Outcome, it.Reason, it.Started, it.Ended = Cut(it.Outcome), Cut(it.Reason), Cut(it.Started), Cut(it.Ended)
		it.DurationS = max(it.DurationS, 0)
		it.Waited.notBelowZero()
	}
	// What is counted from the iterations is counted here again, from them.
	w.Outcomes = Outcomes{}
	for _, it := range w.Iterations {
		w.Outcomes.count(it.Outcome)
	}
	w.Failures = reasons(w.Iterations)
	w.Commits = max(w.Commits, 0)
	if w.CostUSD != nil && *w.CostUSD < 0 {
		w.CostUSD = nil
	}
	if t := w.Tokens; t != nil && (t.Input < 0 || t.Output < 0 || t.CacheRead < 0 || t.CacheWrite < 0) {
		w.Tokens = nil
	}
	for i := range w.Checks.Last {
		w.Checks.Last[i] = Cut(w.Checks.Last[i])
	}
	if l := w.Landing; l != nil {
		l.State, l.Target, l.Commit, l.Reason, l.Updated = Cut(l.State), Cut(l.Target), Cut(l.Commit), Cut(l.Reason), Cut(l.Updated)
		for i := range l.Conflicts {
			l.Conflicts[i] = Cut(l.Conflicts[i])
		}
	}
	if np := w.NeedsPerson; np != nil {
		np.Kind, np.What, np.Since = Cut(np.Kind), Cut(np.What), Cut(np.Since)
	}
	w.Time.WorkingS = max(w.Time.WorkingS, 0)
	w.Time.Waiting.notBelowZero()
}

func (w *Waits) notBelowZero() {
	w.BackoffS, w.UsageLimitS, w.PersonS = max(w.BackoffS, 0), max(w.UsageLimitS, 0), max(w.PersonS, 0)
}

// cut keeps at most maxText bytes of s, whole characters.
func Cut(s string) string {
	if len(s) <= maxText {
		return s
	}
	n := maxText
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
