package ralph

import (
	"strings"

	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state"
)

// checkers is the feature that runs the loop's checkers on a claim of being done: an
// iteration's (a signal, the done marker, the DONE file) when the policy asks for it, and a
// DONE file found between iterations before it is taken for the loop's end.
type checkers struct{ drv services }

func (ck *checkers) featureName() string { return "checks" }

// endStep runs the checkers on the ended iteration's claim when the policy asks for it.
func (ck *checkers) endStep(step EndStep, r *endStepRun) bool {
	if step != EndCheck {
		return false
	}
	r.verdict = ck.verify(r.st, r.facts.Signals, r.code)
	r.facts.Checked, r.facts.Untested = true, r.verdict.Untested
	return true
}

// stopFiles checks a DONE file found between iterations (no iteration starts when that ended
// the loop, or the loop was stopped meanwhile); one the checkers disproved no longer counts.
func (ck *checkers) stopFiles(st *State, m *Markers) bool {
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
func (ck *checkers) verify(st *State, signals []string, code *int) Verdict {
	checks := ParseChecks(st.Checks, "/")
	ck.drv.say("iteration %d claims to be done (%s): running %s", st.CurrentIteration, strings.Join(signals, ", "),
		words.Plural(len(checks), "check"))
	prompt, _ := state.ReadFile(ck.drv.dir().PromptCopy())
	results, cutShort := RunChecks(ck.drv.ctx(), checks, CheckContext{WorkDir: ck.drv.workDir(st),
		Iteration: st.CurrentIteration, ExitCode: code, OutputFile: ck.drv.dir().ScreenPath(st.CurrentIteration),
		Prompt: string(prompt), Timeout: st.checkTimeout(), Out: ck.drv.detail()})
	return Verdict{Ran: true, Results: results, Untested: cutShort}
}

// verifyDoneFile checks a DONE file found between iterations; it reports whether no iteration
// may start now: the file ended the loop, or the loop was stopped while its checkers ran.
func (ck *checkers) verifyDoneFile(st *State) bool {
	v := ck.verify(st, []string{SignalFile}, nil)
	dec := DoneFileChecked(st.CurrentIteration, v)
	if dec.RemoveDoneFile {
		ck.drv.removeDoneFile(checksFailed)
	}
	ck.drv.transition(st, agent{dead: true}, dec)
	return dec.Ended || v.Untested
}
