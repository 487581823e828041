package report

import (
	"cmp"
	"slices"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/cost"
	"github.com/swarm-dev/swarm/swarm/land"
	"github.com/swarm-dev/swarm/swarm/remote"
)

// Facts are what is recorded of one worker, as Read found them, with its state in the words
// the commands say it.
type Facts struct {
	Name          string
	State, Detail string
	Running       bool      // its process runs now
	Started       time.Time // when the worker was started; zero when it has no record
	Loop          *ralph.State
	Records       []ralph.IterationRecord
	Landing       *land.Record
}

// Window is the time a report covers: from Since to Now.
type Window struct{ Since, Now time.Time }

// in reports whether t falls in the window.
func (w Window) in(t time.Time) bool { return !t.IsZero() && !t.Before(w.Since) && !t.After(w.Now) }

// Build is the report's workers: those with something in the window, in the order of facts.
// An iteration counts, whole, in the window it ended in.
func Build(facts []Facts, w Window) []Worker {
	out := make([]Worker, 0, len(facts))
	for _, f := range facts {
		if wk, ok := buildWorker(f, w); ok {
			out = append(out, wk)
		}
	}
	return out
}

func buildWorker(f Facts, w Window) (Worker, bool) {
	wk := Worker{Name: f.Name, Host: remote.LocalName, State: f.State, StateDetail: f.Detail,
		Loop: f.Loop != nil || len(f.Records) > 0, Iterations: []Iteration{}}
	var lastEnd time.Time
	for _, r := range f.Records {
		ended := ralph.ParseTime(r.EndedAt)
		lastEnd = later(lastEnd, ended)
		if !w.in(ended) {
			continue
		}
		wk.addIteration(r, ended)
	}
	if f.Loop != nil {
		wk.Agent = firstOf(f.Loop.Agent, lastAgent(f.Records))
		wk.addNow(f.Loop, lastEnd, w)
		wk.NeedsPerson = needsPerson(f.Loop)
	}
	wk.Failures = reasons(wk.Iterations)
	if l := f.Landing; l != nil && w.in(ralph.ParseTime(l.Updated)) {
		wk.Landing = &Landing{State: l.State, Target: l.Target, Commit: l.Commit, Reason: l.Reason,
			Conflicts: l.Conflicts, SentBack: l.ResumedLoop != "" && l.SentBack(), Updated: l.Updated}
	}
	return wk, wk.shown(f, w)
}

// shown reports whether the worker belongs in the report: something of it happened in the
// window, it runs now, or it needs a person now.
func (wk *Worker) shown(f Facts, w Window) bool {
	if len(wk.Iterations) > 0 || wk.Landing != nil || wk.NeedsPerson != nil || w.in(f.Started) {
		return true
	}
	if st := f.Loop; st != nil {
		return st.Status == ralph.StatusRunning || st.Status == ralph.StatusWaiting ||
			w.in(ralph.ParseTime(st.Started)) || w.in(ralph.ParseTime(st.Ended))
	}
	return f.Running
}

// addIteration counts one iteration that ended in the window.
func (wk *Worker) addIteration(r ralph.IterationRecord, ended time.Time) {
	outcome, reason := outcomeOf(r)
	it := Iteration{N: r.Iteration, Started: rfc3339(r.StartedAt), Ended: ended.Format(time.RFC3339), Outcome: outcome,
		Reason: reason, DurationS: roundS(r.DurationMs), CostUSD: r.Cost, Commits: len(r.Commits)}
	if r.Waited != nil {
		it.Waited = waitsOf(*r.Waited)
	}
	wk.Iterations = append(wk.Iterations, it)
	wk.Outcomes.count(outcome)
	wk.Time.WorkingS += max(it.DurationS-it.Waited.PersonS, 0)
	wk.Time.Waiting.add(it.Waited)
	wk.Commits += it.Commits
	if r.Cost != nil {
		wk.CostUSD = addCost(wk.CostUSD, *r.Cost)
	}
	if r.Tokens != nil {
		wk.Tokens = addTokens(wk.Tokens, *r.Tokens)
	}
	if len(r.Checks) > 0 {
		wk.Checks.Ran++
		if _, failed := failedCheck(r.Checks); failed {
			wk.Checks.Failed++
			wk.Checks.Last = checkLines(r.Checks)
		} else {
			wk.Checks.Passed++
		}
	}
}

// addNow counts what the loop's records do not hold yet: the waits since its last record, and
// the iteration or the wait under way now (from the window's start at the earliest).
func (wk *Worker) addNow(st *ralph.State, lastEnd time.Time, w Window) {
	if st.Waited != nil {
		wk.Time.Waiting.add(waitsOf(*st.Waited))
	}
	from := func(t time.Time) time.Time { return later(t, w.Since) }
	person := int64(0)
	if since := ralph.ParseTime(st.PersonSince); !since.IsZero() {
		person = seconds(w.Now.Sub(from(since)))
		wk.Time.Waiting.PersonS += person
	}
	switch {
	case st.Status == ralph.StatusWaiting:
		wk.Time.Waiting.UsageLimitS += seconds(w.Now.Sub(from(lastEnd)))
	case st.Status == ralph.StatusRunning && st.Phase == ralph.PhaseBackoff:
		until := ralph.ParseTime(st.BackoffUntil)
		if until.IsZero() || until.After(w.Now) {
			until = w.Now
		}
		wk.Time.Waiting.BackoffS += seconds(until.Sub(from(lastEnd)))
	case (st.Status == ralph.StatusRunning || st.Status == ralph.StatusPaused) && st.Phase.Underway():
		started := ralph.ParseTime(st.LastIterationStarted)
		if !started.IsZero() {
			wk.Time.WorkingS += max(seconds(w.Now.Sub(from(started)))-person, 0)
		}
	}
}

// needsPerson is what the loop's agent waits for a person for, in the words of every view;
// nil when nothing (or when the loop does not run: its agent waits for no one).
func needsPerson(st *ralph.State) *NeedsPerson {
	need, ok := st.PersonNeed()
	if !ok {
		return nil
	}
	np := &NeedsPerson{Kind: need.Kind, What: need.Words()}
	if !need.Since.IsZero() {
		np.Since = need.Since.Format(time.RFC3339)
	}
	return np
}

// reasons groups the reasons of the iterations that went wrong, the most frequent first (the
// earliest first among equals).
func reasons(its []Iteration) []Reason {
	var out []Reason
	for _, it := range its {
		if !failing(it.Outcome) {
			continue
		}
		i := slices.IndexFunc(out, func(r Reason) bool { return r.Outcome == it.Outcome && r.Reason == it.Reason })
		if i < 0 {
			out = append(out, Reason{Outcome: it.Outcome, Reason: it.Reason})
			i = len(out) - 1
		}
		out[i].Count++
	}
	slices.SortStableFunc(out, func(a, b Reason) int { return cmp.Compare(b.Count, a.Count) })
	return out
}

func checkLines(checks []ralph.CheckResult) []string {
	var out []string
	for _, c := range checks {
		if !c.Passed {
			out = append(out, c.Name+": "+c.Message)
		}
	}
	return out
}

func waitsOf(w ralph.Waits) Waits {
	return Waits{BackoffS: roundS(w.BackoffMs), UsageLimitS: roundS(w.LimitMs), PersonS: roundS(w.PersonMs)}
}

func (w *Waits) add(o Waits) {
	w.BackoffS += o.BackoffS
	w.UsageLimitS += o.UsageLimitS
	w.PersonS += o.PersonS
}

// total is all the seconds waited.
func (w Waits) total() int64 { return w.BackoffS + w.UsageLimitS + w.PersonS }

func addCost(sum *float64, usd float64) *float64 {
	if sum == nil {
		return &usd
	}
	v := *sum + usd
	return &v
}

func addTokens(sum *cost.Usage, u cost.Usage) *cost.Usage {
	if sum == nil {
		return &u
	}
	v := *sum
	v.Add(u)
	return &v
}

func lastAgent(recs []ralph.IterationRecord) string {
	if len(recs) == 0 {
		return ""
	}
	return recs[len(recs)-1].Agent
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func seconds(d time.Duration) int64 { return roundS(d.Milliseconds()) }

// roundS is milliseconds in whole seconds, the nearest, and none below zero.
func roundS(ms int64) int64 { return max(ms+500, 0) / 1000 }

// rfc3339 is a stored time in RFC 3339; "" when absent or unreadable.
func rfc3339(stored string) string {
	if t := ralph.ParseTime(stored); !t.IsZero() {
		return t.Format(time.RFC3339)
	}
	return ""
}
