package swarm

import (
	"fmt"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/dashboard"
	"github.com/swarm-dev/swarm/swarm/land"
)

// What the dashboard says of a worker: one row of facts in words, made from the worker's
// record, its loop's state and the clock, with no reading of files or tmux here. The words are
// swarm's own (state_words.go), the same as ls and status say.

// idleAfter is how long a screen stays unchanged before its worker reads as idle.
const idleAfter = 30 * time.Second

// loopFacts is what the dashboard knows of a loop besides its state.
type loopFacts struct {
	chain bool // it runs a chain's steps
	agent bool // it is a swarm agent (inbox and stages)
}

// rowFor makes a worker's row; st is its loop's state (nil for a worker that is no loop) and
// activity when its tmux window last printed something.
func rowFor(w *state.Worker, st *ralph.State, lf loopFacts, activity, now time.Time) dashboard.Row {
	r := dashboard.Row{Name: w.Name, Kind: "plain", Iteration: "-", Failures: -1, Tmux: w.Tmux != nil, Tags: w.Tags,
		Started: w.Started}
	if st == nil {
		r.State, r.Tone = workerWords(w, activity, now)
		r.Changed = activity
		return r
	}
	r.Loop, r.Kind = true, "loop"
	switch {
	case lf.agent:
		r.Kind = "agent"
	case lf.chain:
		r.Kind = "chain"
	}
	r.State, r.Tone = loopWords(st, now)
	r.Iteration = fmt.Sprintf("%d/%d", st.CurrentIteration, st.MaxIterations)
	r.Failures = st.TotalFailures
	if r.Changed = ralph.ParseTime(st.LastScreenChange); r.Changed.IsZero() {
		r.Changed = activity
	}
	if st.CostIterations > 0 {
		c := st.CostUSD
		r.Cost = &c
	}
	if st.RateLimits != nil {
		r.Pace = st.RateLimits.Words(now, time.Local)
	}
	return r
}

// workerWords is the state of a worker that is no loop.
func workerWords(w *state.Worker, activity, now time.Time) (string, dashboard.Tone) {
	switch {
	case w.Status == state.StatusOrphaned:
		return wordOrphaned, dashboard.ToneBad
	case w.Status != state.StatusRunning && w.ExitCode != nil && *w.ExitCode != 0:
		return stateOf(w.Status, w.ExitCode, nil).String(), dashboard.ToneBad
	case w.Status != state.StatusRunning:
		return stateOf(w.Status, w.ExitCode, nil).String(), dashboard.ToneQuiet
	case w.Tmux != nil && !activity.IsZero() && now.Sub(activity) >= idleAfter:
		return "idle", dashboard.ToneQuiet
	case w.Tmux != nil:
		return "working", dashboard.ToneBusy
	}
	return "running", dashboard.ToneBusy
}

// loopWords is the state of a loop, as a person would say it.
func loopWords(st *ralph.State, now time.Time) (string, dashboard.Tone) {
	switch sw := loopStateWord("", st); sw.word {
	case wordPaused, wordKilled, wordStopped:
		return sw.String(), dashboard.ToneQuiet
	case wordBlocked:
		return sw.String(), dashboard.ToneWarn
	case wordFailed:
		return sw.String(), dashboard.ToneBad
	case wordDone:
		return sw.String(), dashboard.ToneGood
	case wordWaiting:
		if st.TmuxSilentSince != "" {
			return "waiting: tmux server not answering", dashboard.ToneWarn
		}
	}
	switch st.Status {
	case ralph.StatusWaiting:
		if until := ralph.ParseTime(st.WaitingUntil); !until.IsZero() {
			return "waiting: limit until " + until.Local().Format("15:04"), dashboard.ToneWarn
		}
		return "waiting: limit", dashboard.ToneWarn
	}
	return runningWords(st, now)
}

// runningWords is the state of a loop that runs: where its iteration is.
func runningWords(st *ralph.State, now time.Time) (string, dashboard.Tone) {
	switch st.Phase {
	case ralph.PhaseBackoff:
		if until := ralph.ParseTime(st.BackoffUntil); until.After(now) {
			return "backoff " + words.Short(until.Sub(now).Round(time.Second)), dashboard.ToneWarn
		}
		return "backoff", dashboard.ToneWarn
	case ralph.PhaseStarting, ralph.PhaseDelivering, ralph.PhaseSubmitting, ralph.PhaseEnded:
		return "starting", dashboard.ToneBusy
	}
	if changed := ralph.ParseTime(st.LastScreenChange); !changed.IsZero() && now.Sub(changed) >= idleAfter {
		return "idle", dashboard.ToneQuiet
	}
	return "working", dashboard.ToneBusy
}

// withLanding adds where the worker's branch stands in the merge queue to its row's state
// ("done · landed abc1234", "done · needs rebase"); a branch that did not land makes a row at
// rest ask for a person. l is nil for a branch never offered.
func withLanding(r *dashboard.Row, l *landingJSON) {
	if l == nil {
		return
	}
	r.State += " · " + landingWord(l)
	sentBack := l.State == land.NeedsRebase || l.State == land.BreaksTests
	if sentBack && (r.Tone == dashboard.ToneQuiet || r.Tone == dashboard.ToneGood) {
		r.Tone = dashboard.ToneWarn
	}
}

// withSandbox marks the row of a worker whose agent runs unsandboxed although it was to be
// confined ("working · unsandboxed"), as ls marks it.
func withSandbox(r *dashboard.Row, sb *state.SandboxInfo) {
	if unsandboxed(sb) {
		r.State += " · " + wordUnsandboxed
	}
}
