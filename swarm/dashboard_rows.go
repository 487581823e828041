package swarm

import (
	"fmt"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// What the dashboard says of a worker: one row of facts in words, made from the worker's
// record, its loop's state and the clock, with no reading of files or tmux here.

// tone is how a state reads at a glance, and so how it is coloured.
type tone int

const (
	toneQuiet tone = iota // idle, paused, stopped: nothing happening
	toneBusy              // working, starting
	toneGood              // done
	toneWarn              // blocked, waiting for a limit, backing off: may need a person
	toneBad               // failed
)

// dashRow is one worker as the dashboard shows it.
type dashRow struct {
	Name      string
	Kind      string // loop, chain, agent (swarm agent), plain (not a loop)
	State     string // in words: working, idle, blocked: trust-folder, backoff 8s, done, ...
	Tone      tone
	Iteration string    // "3/20"; "-" for a worker that is no loop
	Changed   time.Time // the screen's last change; zero when not known
	Failures  int       // the loop's failed iterations; -1 for no loop
	Cost      *float64  // what the loop cost so far, when known
	Tmux      bool      // has a tmux window (a screen to preview, to attach to)
	Loop      bool      // a ralph loop: pause, resume and events apply
	Tags      []string
	Started   time.Time // when the worker was started, for the order by start

	worker *state.Worker // the record it was made from, for reading its screen
}

// idleAfter is how long a screen stays unchanged before its worker reads as idle.
const idleAfter = 30 * time.Second

// loopFacts is what the dashboard knows of a loop besides its state.
type loopFacts struct {
	chain bool // it runs a chain's steps
	agent bool // it is a swarm agent (inbox and stages)
}

// rowFor makes a worker's row; st is its loop's state (nil for a worker that is no loop) and
// activity when its tmux window last printed something.
func rowFor(w *state.Worker, st *ralph.State, lf loopFacts, activity, now time.Time) dashRow {
	r := dashRow{Name: w.Name, Kind: "plain", Iteration: "-", Failures: -1, Tmux: w.Tmux != nil, Tags: w.Tags,
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
	return r
}

// workerWords is the state of a worker that is no loop.
func workerWords(w *state.Worker, activity, now time.Time) (string, tone) {
	switch {
	case w.Status == state.StatusOrphaned:
		return wordOrphaned, toneBad
	case w.Status != state.StatusRunning && w.ExitCode != nil && *w.ExitCode != 0:
		return stateOf(w.Status, w.ExitCode, nil).String(), toneBad
	case w.Status != state.StatusRunning:
		return stateOf(w.Status, w.ExitCode, nil).String(), toneQuiet
	case w.Tmux != nil && !activity.IsZero() && now.Sub(activity) >= idleAfter:
		return "idle", toneQuiet
	case w.Tmux != nil:
		return "working", toneBusy
	}
	return "running", toneBusy
}

// loopWords is the state of a loop, as a person would say it.
func loopWords(st *ralph.State, now time.Time) (string, tone) {
	switch sw := loopStateWord("", st); sw.word {
	case wordPaused, wordKilled, wordStopped:
		return sw.String(), toneQuiet
	case wordFailed:
		return sw.String(), toneBad
	case wordDone:
		return sw.String(), toneGood
	}
	switch st.Status {
	case ralph.StatusWaiting:
		if until := ralph.ParseTime(st.WaitingUntil); !until.IsZero() {
			return "waiting: limit until " + until.Local().Format("15:04"), toneWarn
		}
		return "waiting: limit", toneWarn
	}
	return runningWords(st, now)
}

// runningWords is the state of a loop that runs: where its iteration is.
func runningWords(st *ralph.State, now time.Time) (string, tone) {
	if st.BlockedBy != "" {
		return "blocked: " + st.BlockedBy, toneWarn
	}
	if st.NeedsPermission != "" {
		return "needs permission", toneWarn
	}
	switch st.Phase {
	case ralph.PhaseBackoff:
		if until := ralph.ParseTime(st.BackoffUntil); until.After(now) {
			return "backoff " + formatDuration(until.Sub(now).Round(time.Second)), toneWarn
		}
		return "backoff", toneWarn
	case ralph.PhaseStarting, ralph.PhaseDelivering, ralph.PhaseSubmitting, ralph.PhaseEnded:
		return "starting", toneBusy
	}
	if changed := ralph.ParseTime(st.LastScreenChange); !changed.IsZero() && now.Sub(changed) >= idleAfter {
		return "idle", toneQuiet
	}
	return "working", toneBusy
}

// ago says how long ago t was: "4s ago", "3m ago"; "-" when it is not known.
func ago(t, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return formatDuration(now.Sub(t)) + " ago"
}

// dollars is a cost for the table: "$0.42", "-" when not known.
func dollars(c *float64) string {
	if c == nil {
		return "-"
	}
	return fmt.Sprintf("$%.2f", *c)
}
