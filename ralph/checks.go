package ralph

import (
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state/eventlog"
)

// Completion checkers (--check): an agent's claim to be done (a marker, the DONE file, a clean
// exit) is verified before the loop believes it. This file holds what a checker is and what
// the loop makes of their answers; the driver (ralph/driver/checks_run.go) runs them.

// DefaultCheckTimeout bounds one checker's run.
const DefaultCheckTimeout = 10 * time.Minute

// ParseChecks reads the loop's stored checker specs; they were checked at spawn, so a spec
// that no longer parses (a script removed since) is kept as a checker that fails.
func ParseChecks(specs []string, dir string) []config.Check {
	out := make([]config.Check, 0, len(specs))
	for _, s := range specs {
		c, err := config.ParseCheck(s, dir)
		if err != nil {
			c = config.Check{Spec: s, Kind: config.CheckScript, Arg: s}
		}
		out = append(out, c)
	}
	return out
}

// CheckResult is one checker's answer.
type CheckResult struct {
	Name    string `json:"name"`
	Passed  bool   `json:"passed"`
	Message string `json:"message"`
}

// Completion signals: what an iteration offered as a sign of being done, or how it ended.
const (
	SignalMarker        = "marker"         // a done pattern or built-in marker was printed
	SignalExitCode      = "exit_code"      // the agent exited with 0
	SignalFile          = "file"           // the DONE file was there
	SignalTimeout       = "timeout"        // swarm ended it for time (inactivity, hang, limits)
	SignalMaxIterations = "max_iterations" // it was the last iteration allowed
)

// SignalsOf names the signals of an iteration that ended as kind, with exit code code (nil:
// unknown), a done marker seen or not, and the DONE file there or not.
func SignalsOf(kind Ending, code *int, marker, doneFile bool) []string {
	out := []string{}
	if marker {
		out = append(out, SignalMarker)
	}
	if kind == EndExited && code != nil && *code == 0 {
		out = append(out, SignalExitCode)
	}
	if doneFile || kind == EndDoneFile {
		out = append(out, SignalFile)
	}
	if kind.timedOut() {
		out = append(out, SignalTimeout)
	}
	return out
}

// ClaimsDone reports whether signals call for the checkers: a marker, the DONE file, or a
// clean exit.
func ClaimsDone(signals []string) bool {
	for _, s := range signals {
		if s == SignalMarker || s == SignalExitCode || s == SignalFile {
			return true
		}
	}
	return false
}

// Verdict is what the checkers said after an iteration that claimed to be done.
type Verdict struct {
	Ran     bool
	Results []CheckResult
	// Untested: the loop was stopped while they ran, so they neither passed nor failed.
	Untested bool
}

// Passed reports whether the checkers ran to their end and every one passed.
func (v Verdict) Passed() bool {
	if !v.Ran || v.Untested || len(v.Results) == 0 {
		return false
	}
	for _, r := range v.Results {
		if !r.Passed {
			return false
		}
	}
	return true
}

// Verified ends the loop as complete: the iteration claimed to be done and every checker
// agreed.
func Verified(n int, signals []string, checks int) Decision {
	var d Decision
	d.Say("completion verified: %s passed (signals: %s), stopping loop", words.Plural(checks, "check"), strings.Join(signals, ", "))
	d.event("COMPLETE", "iteration %d %s passed (signals: %s)", n, words.Plural(checks, "check"), strings.Join(signals, ", "))
	d.Stop(StatusStopped, "complete", "")
	d.EndAgent = true
	d.tell(eventlog.Event{Kind: eventlog.ChecksPassed, Iteration: n, Detail: words.Plural(checks, "check") + " passed"})
	return d
}

// rejected notes the checkers that disproved an iteration's claim; the loop goes on.
func rejected(d *Decision, n int, v Verdict) {
	d.tell(checksFailed(n, v.Results))
	for _, r := range v.Results {
		if !r.Passed {
			d.event("CHECK", "iteration %d %s failed: %s", n, r.Name, words.OneLine(r.Message))
			d.Say("check %s failed: %s", r.Name, words.OneLine(r.Message))
		}
	}
}

// DoneFileChecked decides on a DONE file found between iterations, once the checkers ran:
// complete, or the file goes and the loop carries on. Checkers cut short by a stop prove
// nothing: the file stays for the next look.
func DoneFileChecked(n int, v Verdict) Decision {
	if v.Untested {
		var d Decision
		d.Say("the DONE file was not verified: the loop is stopping while its checks ran")
		d.event("CHECK", "iteration %d DONE file not verified: checks cut short by a stop", n)
		return d
	}
	signals := []string{SignalFile}
	if v.Passed() {
		d := Verified(n, signals, len(v.Results))
		d.Verdict, d.Signals, d.EndAgent = v.Results, signals, false
		return d
	}
	var d Decision
	rejected(&d, n, v)
	d.Verdict, d.RemoveDoneFile = v.Results, true
	return d
}
