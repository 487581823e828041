package swarm

import (
	"fmt"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// `wait --until`: the moment a worker reaches a state, decided from its record and its
// loop's state, in the words of ls and the dashboard (state_words.go, dashboard_rows.go).
// A worker that ends without reaching it never will: it is said, and the wait exits 1.

// The states `wait --until` waits for.
const (
	untilDone        = "done"         // the loop ended done
	untilNeedsPerson = "needs-person" // the loop's agent waits for a person now (ralph.State.PersonNeed)
	untilIdle        = "idle"         // the agent is idle at its prompt, as the dashboard says
	untilEnded       = "ended"        // the loop ended, any way, or the worker (no loop) exited
)

var untilGoals = []string{untilDone, untilNeedsPerson, untilIdle, untilEnded}

// untilFacts are what one look at a worker saw.
type untilFacts struct {
	w    *state.Worker // its record, reconciled; nil when it has none
	loop *ralph.State  // its loop's state; nil for a worker that is no loop
	// goesOn: the loop's monitor runs, so a loop whose agent ended starts another.
	goesOn   bool
	activity time.Time // when its tmux window last printed (a worker that is no loop)
	now      time.Time
}

// untilVerdict is what a look decides: the goal reached, or never to be (the worker ended),
// with the line to print; or neither, and when to look again though nothing changed (zero:
// once something does).
type untilVerdict struct {
	reached, never bool
	line           string
	wake           time.Time
}

// decideUntil decides, for the worker name, whether the goal is reached.
func decideUntil(goal, name string, f untilFacts) untilVerdict {
	end := endOfWait(name, f.w, f.loop, nil)
	ended := f.w == nil || f.w.Status != state.StatusRunning && !f.goesOn
	if f.loop != nil && f.w != nil {
		ended = stateOf(f.w.Status, f.w.ExitCode, f.loop).ended() && !f.goesOn
	}
	switch goal {
	case untilEnded:
		if ended {
			return untilVerdict{reached: true, line: end.line}
		}
		return untilVerdict{}
	case untilDone:
		if f.loop != nil && end.state == wordDone {
			return untilVerdict{reached: true, line: name + ": done"}
		}
	case untilNeedsPerson:
		if f.w != nil {
			if n := needOf(f.w.Status, f.loop); n != nil {
				return untilVerdict{reached: true, line: name + ": needs a person (" + n.What + ")"}
			}
		}
	case untilIdle:
		if v, ok := idleVerdict(name, f); ok && !ended {
			return v
		}
	}
	if ended {
		return untilVerdict{never: true, line: end.line + ", " + notReached(goal)}
	}
	return untilVerdict{}
}

// idleVerdict is whether a running worker is idle, as the dashboard says it, and when it will
// be if its screen stays as it is; ok is false for no verdict but to wait.
func idleVerdict(name string, f untilFacts) (untilVerdict, bool) {
	if f.w == nil {
		return untilVerdict{}, false
	}
	since := f.activity
	word := ""
	if f.loop != nil {
		word, _ = loopWords(f.loop, f.now)
		since = ralph.ParseTime(f.loop.LastScreenChange)
	} else {
		word, _ = workerWords(f.w, f.activity, f.now)
	}
	if word == "idle" {
		return untilVerdict{reached: true, line: name + ": idle"}, true
	}
	if since.IsZero() {
		return untilVerdict{}, false
	}
	return untilVerdict{wake: since.Add(idleAfter)}, true
}

// notReached says which goal an ended worker did not reach.
func notReached(goal string) string {
	switch goal {
	case untilDone:
		return "not done"
	case untilNeedsPerson:
		return "needing no person"
	}
	return "never idle"
}

// untilTimeout is the line of a worker the wait timed out on: its state now, and the goal.
func untilTimeout(goal, name string, f untilFacts) string {
	status := ""
	if f.w != nil {
		status = f.w.Status
	}
	sw := stateOf(status, nil, f.loop)
	if n := needOf(status, f.loop); n != nil {
		sw = stateWord{word: wordBlocked, detail: n.What}
	}
	return fmt.Sprintf("%s: %s, not %s (timeout)", name, sw, goalWords(goal))
}

// goalWords is the goal as a state: "done", "needing a person", "idle", "ended".
func goalWords(goal string) string {
	if goal == untilNeedsPerson {
		return "needing a person"
	}
	return goal
}

// untilNeeds says why a worker cannot be waited for until goal ("" when it can): done and
// needs-person are a loop's states, idle is told from a tmux window or a loop's screen.
func untilNeeds(goal string, w *state.Worker) string {
	loop := w.Metadata["ralph"] == true
	switch {
	case (goal == untilDone || goal == untilNeedsPerson) && !loop:
		return fmt.Sprintf("'%s' runs no loop: --until %s waits for a loop's (--until ended waits for any worker)", w.Name, goal)
	case goal == untilIdle && !loop && w.Tmux == nil:
		return fmt.Sprintf("'%s' runs in no tmux window: whether it is idle cannot be told (--until ended waits for any worker)", w.Name)
	}
	return ""
}
