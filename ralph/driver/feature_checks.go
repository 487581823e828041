package driver

import (
	"context"
	"io"
	"strings"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state"
)

// checkerServices are what the checkers ask of the driver: the one slice of its services
// (services.go) it uses.
type checkerServices interface {
	dir() ralph.Dir
	say(format string, args ...any)
	detail() io.Writer
	transition(st *ralph.State, a agent, dec ralph.Decision) *ralph.State
	removeDoneFile(why string)
	ctx() context.Context
	workDir(st *ralph.State) string
}

// checkers is the feature that runs the loop's checkers on a claim of being done: an
// iteration's (a signal, the done marker, the DONE file) when the policy asks for it, and a
// DONE file found between iterations before it is taken for the loop's end.
type checkers struct{ drv checkerServices }

func (ck *checkers) featureName() string { return "checks" }

// endStep runs the checkers on the ended iteration's claim when the policy asks for it.
func (ck *checkers) endStep(step ralph.EndStep, r *endStepRun) bool {
	if step != ralph.EndCheck {
		return false
	}
	r.verdict = ck.verify(r.st, r.facts.Signals, r.code)
	r.facts.Checked, r.facts.Untested = true, r.verdict.Untested
	return true
}

// stopFiles checks a DONE file found between iterations (no iteration starts when that ended
// the loop, or the loop was stopped meanwhile); one the checkers disproved no longer counts.
func (ck *checkers) stopFiles(st *ralph.State, m *ralph.Markers) bool {
	if !m.DoneFile || len(st.Checks) == 0 {
		return false
	}
	if ck.verifyDoneFile(st) {
		return true
	}
	m.DoneFile = false
	return false
}

// verify runs the checkers on an iteration that claimed to be done. A loop stopped meanwhile
// ends the checker that runs; its verdict is then Untested.
func (ck *checkers) verify(st *ralph.State, signals []string, code *int) ralph.Verdict {
	checks := ralph.ParseChecks(st.Checks, "/")
	ck.drv.say("iteration %d claims to be done (%s): running %s", st.CurrentIteration, strings.Join(signals, ", "),
		words.Plural(len(checks), "check"))
	prompt, _ := state.ReadFile(ck.drv.dir().PromptCopy())
	results, cutShort := RunChecks(ck.drv.ctx(), checks, CheckContext{WorkDir: ck.drv.workDir(st),
		Iteration: st.CurrentIteration, ExitCode: code, OutputFile: ck.drv.dir().ScreenPath(st.CurrentIteration),
		Prompt: string(prompt), Timeout: st.EffectiveCheckTimeout(), Out: ck.drv.detail()})
	return ralph.Verdict{Ran: true, Results: results, Untested: cutShort}
}

// verifyDoneFile checks a DONE file found between iterations; it reports whether no iteration
// may start now: the file ended the loop, or the loop was stopped while its checkers ran.
func (ck *checkers) verifyDoneFile(st *ralph.State) bool {
	v := ck.verify(st, []string{ralph.SignalFile}, nil)
	dec := ralph.DoneFileChecked(st.CurrentIteration, v)
	if dec.RemoveDoneFile {
		ck.drv.removeDoneFile(checksFailed)
	}
	ck.drv.transition(st, agent{dead: true}, dec)
	return dec.Ended || v.Untested
}
