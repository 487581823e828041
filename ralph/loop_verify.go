package ralph

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state"
)

// The effects around an iteration's end that the user configures: the checkers that verify a
// claim of being done, the hooks, and the iteration's line in iterations.jsonl.

// newRecord starts an iteration's record as it ends.
func (l *Loop) newRecord(st *State, kind Ending) IterationRecord {
	now := l.cfg.Clock.Now()
	r := IterationRecord{RunID: st.RunID, Iteration: st.CurrentIteration, Agent: l.agentName(st),
		StartedAt: st.LastIterationStarted, EndedAt: now.Format(time.RFC3339Nano), EndReason: kind.Reason()}
	if started := ParseTime(st.LastIterationStarted); !started.IsZero() {
		r.StartedAt = started.Format(time.RFC3339Nano)
		r.DurationMs = now.Sub(started).Milliseconds()
	}
	return r
}

// finishIteration records a finished iteration and runs the post-iteration hooks, which see
// the loop's status as the iteration left it.
func (l *Loop) finishIteration(rec *IterationRecord) {
	r := *rec
	l.appendOrKeep(func() error { return l.cfg.Dir.AppendIteration(r) })
	if cur, err := l.cfg.Dir.Load(); err == nil {
		l.runHooks(cur, config.HookPostIteration, rec.Iteration, rec.ExitCode)
	}
}

// agentName is the agent's program, as hooks and iterations.jsonl name it.
func (l *Loop) agentName(st *State) string {
	if st.Agent != "" {
		return st.Agent
	}
	if w, err := l.worker(); err == nil && len(w.Cmd) > 0 {
		return filepath.Base(w.Cmd[0])
	}
	return ""
}

// workDir is the worker's directory.
func (l *Loop) workDir(st *State) string {
	if w, err := l.worker(); err == nil && w.Cwd != "" {
		return w.Cwd
	}
	return st.WorkDir
}

// commitsOf lists the commits the iteration made, oldest first.
func (l *Loop) commitsOf(st *State) []string {
	if st.IterationStartCommit == "" {
		return nil
	}
	commits, _ := git.CommitsSince(l.workDir(st), st.IterationStartCommit)
	for i, j := 0, len(commits)-1; i < j; i, j = i+1, j-1 {
		commits[i], commits[j] = commits[j], commits[i]
	}
	return commits
}

// verify runs the checkers on an iteration that claimed to be done. A loop stopped meanwhile
// ends the checker that runs; its verdict is then Untested.
func (l *Loop) verify(st *State, signals []string, code *int) Verdict {
	checks := ParseChecks(st.Checks, "/")
	l.say("iteration %d claims to be done (%s): running %s", st.CurrentIteration, strings.Join(signals, ", "),
		words.Plural(len(checks), "check"))
	prompt, _ := state.ReadFile(l.cfg.Dir.PromptCopy())
	results, cutShort := RunChecks(l.ctx(), checks, CheckContext{WorkDir: l.workDir(st), Iteration: st.CurrentIteration,
		ExitCode: code, OutputFile: l.cfg.Dir.ScreenPath(st.CurrentIteration), Prompt: string(prompt),
		Timeout: st.checkTimeout(), Out: l.cfg.Detail})
	return Verdict{Ran: true, Results: results, Untested: cutShort}
}

// removeDoneFile takes away a DONE file whose claim did not hold, for the reason why.
func (l *Loop) removeDoneFile(why string) {
	if err := os.Remove(l.cfg.Dir.DoneFile()); err == nil {
		l.say("removed %s: %s", l.cfg.Dir.DoneFile(), why)
	}
}

// checksFailed is why a DONE file the checkers disproved goes.
const checksFailed = "the checks did not pass"

// runHooks runs the loop's hooks of one type; one that fails or times out is logged. cutShort
// says the loop's context ended while they ran.
func (l *Loop) runHooks(st *State, typ string, n int, code *int) (cutShort bool) {
	if !hasHook(st.Hooks, typ) {
		return false
	}
	hc := HookContext{Agent: l.agentName(st), Iteration: n, MaxIterations: st.MaxIterations, ExitCode: code,
		Status: st.Status, WorkDir: l.workDir(st), Worker: l.cfg.Name}
	return reportHooks(l.ctx(), st, typ, hc, l.cfg.Detail, l.say, l.logEvent)
}

func hasHook(hooks []config.Hook, typ string) bool {
	for _, h := range hooks {
		if h.Type == typ {
			return true
		}
	}
	return false
}

// finish acts once on a loop that has ended: its summary.md, then its end-of-loop hook. A
// hook the loop's context cut short leaves the loop unfinished, for its next driver to finish.
func (l *Loop) finish() {
	st, err := l.cfg.Dir.Load()
	if err != nil || st.Finalized || (st.Status != StatusStopped && st.Status != StatusFailed) {
		return
	}
	l.recorded(l.cfg.Dir.WriteSummary(l.cfg.Clock.Now()))
	if typ := OutcomeOf(st).FinalHook(); typ != "" && l.runHooks(st, typ, st.CurrentIteration, st.LastExitCode) {
		return
	}
	l.update(func(s *State) error { s.Finalized = true; return nil })
}

// verifyDoneFile checks a DONE file found between iterations; it reports whether no iteration
// may start now: the file ended the loop, or the loop was stopped while its checkers ran.
func (l *Loop) verifyDoneFile(st *State) bool {
	v := l.verify(st, []string{SignalFile}, nil)
	dec := DoneFileChecked(st.CurrentIteration, v)
	if dec.RemoveDoneFile {
		l.removeDoneFile(checksFailed)
	}
	l.transition(st, agent{dead: true}, dec)
	return dec.Ended || v.Untested
}

// stoppedWhileWorking records the iteration of a loop stopped from outside (ralph stop, kill)
// while its agent worked.
func (l *Loop) stoppedWhileWorking(st *State, a agent) {
	rec := l.newRecord(st, EndExited)
	rec.EndReason = "stopped"
	rec.Commits = l.commitsOf(st)
	l.appendOrKeep(func() error { return l.cfg.Dir.AppendIteration(rec) })
}
