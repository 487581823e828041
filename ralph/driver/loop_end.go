package driver

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/state"
)

// Ending an iteration: the driver ends the agent, gathers what happened, and carries out what
// the policy (ralph's iteration_end.go for the order, decide.go for the verdict) makes of it.
// Every way an iteration can end comes through end, so the stop rules, the test gate and
// failure counting apply to all of them alike.

// end evaluates an iteration that has ended (or is ended here) and carries out what follows:
// stop, back off, or start the next one. The order of what happens is the policy's
// (NextEndStep, then AfterRun); this gathers the facts and does the steps.
func (l *Loop) end(st *ralph.State, a agent, kind ralph.Ending) {
	if l.statusNow() == ralph.StatusStopped {
		return
	}
	n, lim := st.CurrentIteration, limits(st)
	// The marker may be the last thing the agent printed before it exited.
	marker := kind == ralph.EndDoneMarker || kind == ralph.EndExited && l.doneSeen(st, a)
	rec := l.newRecord(st, kind)
	if marker && lim.Checks == 0 {
		rec.EndReason = ralph.EndDoneMarker.Reason()
	}
	defer l.finishIteration(&rec)
	l.features.iterationEnding(st)
	l.transition(st, a, ralph.Announce(n, kind, lim, l.statusNow() == ralph.StatusRunning))
	if kind == ralph.EndHung {
		l.rec.updateSupervision(func(rs *ralph.SupervisionState) { rs.Hangs++ })
	}
	l.saveScreen(a, n)
	// End the agent (when it still runs) and any orphans it left, in its process group or not.
	l.view.end(agent{pid: a.pid}, l.cfg.KillGrace)
	if kind != ralph.EndExited && !a.gone {
		a = l.view.endedNow(a)
	}
	if kind == ralph.EndExited {
		rec.ExitCode = a.code
	}
	rec.Commits = l.commitsOf(st)
	ended := iterationEnd{st: st, kind: kind, rec: &rec}
	l.features.iterationEnded(&ended)
	e := ralph.EndFacts{Signals: ralph.SignalsOf(kind, a.code, marker, l.markers().DoneFile), Gate: ralph.GateOn(st, lim.Supervision),
		Commits: len(rec.Commits) > 0, Checks: lim.Checks}
	verdict, stop := l.endSteps(st, &e, rec.ExitCode)
	if stop {
		return
	}
	rec.Checks = verdict.Results
	f := l.runFacts(st, a, kind, marker)
	f.Spent, f.Verdict, f.Reverted, f.Limit, f.Untested = ended.spent, verdict, e.Reverted, ended.limit, e.Untested
	dec := ralph.AfterRun(f, lim)
	rec.Signals = f.Signals
	if dec.Signals != nil {
		rec.Signals = dec.Signals
	}
	if n >= lim.MaxIterations && !doneReason(dec.ExitReason) && !slices.Contains(rec.Signals, ralph.SignalMaxIterations) {
		rec.Signals = append(rec.Signals, ralph.SignalMaxIterations)
	}
	if dec.RemoveDoneFile && f.Reverted {
		l.removeDoneFile("its iteration's commits were reverted")
	} else if dec.RemoveDoneFile {
		l.removeDoneFile(checksFailed)
	}
	l.noteInSupervision(dec, l.transition(st, a, dec))
}

// endSteps has the features do what the policy asks before its verdict (the test gate, then
// the checkers). stop is true when a step stopped the loop.
func (l *Loop) endSteps(st *ralph.State, e *ralph.EndFacts, code *int) (v ralph.Verdict, stop bool) {
	r := endStepRun{st: st, facts: e, code: code}
	for {
		step := ralph.NextEndStep(*e)
		if step == ralph.EndDecide || !l.features.endStep(step, &r) {
			return r.verdict, false
		}
		if r.stop {
			return r.verdict, true
		}
	}
}

// doneReason reports whether a loop that ended this way ended as done rather than at its
// iteration limit.
func doneReason(reason string) bool { return reason == "complete" || reason == "done_pattern" }

// noteInSupervision keeps the supervision state in step with an iteration's outcome.
func (l *Loop) noteInSupervision(dec ralph.Decision, cur *ralph.State) {
	head := l.workerHead()
	l.rec.updateSupervision(func(rs *ralph.SupervisionState) {
		if dec.SetCounters {
			rs.ConsecutiveErrors = cur.ConsecutiveFailures
		}
		if head != "" {
			rs.LastCommit = head
		}
	})
}

// runFacts gathers what the policy needs to know about an iteration that ended.
func (l *Loop) runFacts(st *ralph.State, a agent, kind ralph.Ending, marker bool) ralph.RunFacts {
	f := ralph.RunFacts{
		Counters: ralph.Counters{Iteration: st.CurrentIteration, ConsecutiveFailures: st.ConsecutiveFailures, TotalFailures: st.TotalFailures},
		Ending:   kind, ExitCode: a.code, Duration: l.sinceStart(st), Markers: l.markers(),
	}
	// One fresh read: the counters and status as they are now, not as the iteration began.
	if cur, err := l.cfg.Dir.Load(); err == nil {
		f.ConsecutiveFailures, f.TotalFailures = cur.ConsecutiveFailures, cur.TotalFailures
		f.Running = cur.Status == ralph.StatusRunning
		f.Stagnation = l.stagnationFacts(cur)
	}
	if a.code != nil && (*a.code == 126 || *a.code == 127) {
		f.FatalReason = fatalReason(l.cfg.Workers.ExitPath(l.cfg.Name), *a.code)
	}
	f.Signals = ralph.SignalsOf(kind, a.code, marker, f.Markers.DoneFile)
	return f
}

// stagnationFacts looks at the worker's checkout for the stagnation breaker (only when it is on).
func (l *Loop) stagnationFacts(cur *ralph.State) ralph.StagnationFacts {
	f := ralph.StagnationFacts{Limit: cur.StagnationLimit, Before: cur.GitFingerprint, Count: cur.StagnantIterations}
	if f.Limit <= 0 {
		return f
	}
	if w, err := l.cfg.worker(); err == nil {
		f.After, f.InRepo = git.Fingerprint(w.Cwd)
	}
	return f
}

// workerHead is the short commit the worker's directory is at, "" outside a repository.
func (l *Loop) workerHead() string {
	w, err := l.cfg.worker()
	if err != nil {
		return ""
	}
	return ralph.ShortCommit(git.Head(w.Cwd))
}

func (l *Loop) sinceStart(st *ralph.State) (d time.Duration) {
	if started := ralph.ParseTime(st.LastIterationStarted); !started.IsZero() {
		d = l.cfg.Clock.Now().Sub(started)
	}
	return d
}

// doneSeen looks for the done pattern in what the agent left on screen.
func (l *Loop) doneSeen(st *ralph.State, a agent) bool {
	if l.doneRE == nil || a.gone {
		return false
	}
	l.ensureMatcher(l.cfg.Dir.PromptCopy())
	lines, err := l.view.capture(a, l.cfg.HistoryLines)
	return err == nil && l.matcher.Count(lines) > st.DoneBaseline
}

func (l *Loop) saveScreen(a agent, n int) {
	if a.gone {
		return
	}
	out, err := l.cfg.Tmux.Capture(a.paneID, l.cfg.HistoryLines)
	if err != nil {
		return
	}
	dir := filepath.Dir(l.cfg.Dir.ScreenPath(n))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	// A screen is kept to look back at: worth no wait for the disk at each iteration's end.
	_ = state.ReplaceFile(l.cfg.Dir.ScreenPath(n), []byte(out), 0o600)
	pruneScreens(l.cfg.Dir, n, !l.screensPruned)
	l.screensPruned = true
}

// keepScreens is how many iterations' screens a loop keeps.
const keepScreens = 50

// pruneScreens keeps the screens of the last keepScreens iterations up to n. Their names
// carry the iteration, so the one that fell out is removed by name; with sweep, the whole
// directory is looked through (once per monitor: for screens left from before a restart).
func pruneScreens(d ralph.Dir, n int, sweep bool) {
	_ = os.Remove(d.ScreenPath(n - keepScreens))
	if !sweep {
		return
	}
	entries, _ := os.ReadDir(filepath.Dir(d.ScreenPath(n)))
	for _, e := range entries {
		var i int
		if _, err := fmt.Sscanf(e.Name(), "iteration-%d.txt", &i); err == nil && i <= n-keepScreens {
			_ = os.Remove(filepath.Join(filepath.Dir(d.ScreenPath(n)), e.Name()))
		}
	}
}

// fatalReason names the problem behind exit 126/127: the wrapper writes it on the exit file's
// second line when it cannot start the agent; a shell reports the same codes. A reason still
// being written (its line not yet ended) is not taken.
func fatalReason(exitFile string, code int) string {
	data, _ := os.ReadFile(exitFile)
	_, rest, _ := strings.Cut(strings.TrimLeft(string(data), " \t\r\n"), "\n")
	if reason, whole := strings.CutSuffix(rest, "\n"); whole && strings.TrimSpace(reason) != "" {
		return strings.TrimSpace(reason)
	}
	if code == 127 {
		return "executable not found (exit 127)"
	}
	return "permission denied (exit 126)"
}

// freshLoop readies the monitor for the next loop in the same worker: the done patterns and
// prompt may differ, so they are compiled afresh, and a DONE file was the last loop's word.
func (l *Loop) freshLoop() {
	l.forget()
	if err := os.Remove(l.cfg.Dir.DoneFile()); err == nil {
		l.rec.say("removed %s: it ended the previous loop", l.cfg.Dir.DoneFile())
	}
}

// backoff waits out the retry delay; a pause or stop ends the wait at once. A wait that ran
// its course is followed by the next iteration, which supervision announces.
func (l *Loop) backoff(st *ralph.State) {
	until := ralph.ParseTime(st.BackoffUntil)
	waited := true
	for l.cfg.Clock.Now().Before(until) {
		if l.abortRequested() {
			l.abortNow(agent{dead: true})
			waited = false
			break
		}
		if s := l.statusNow(); s != ralph.StatusRunning {
			waited = false
			break
		}
		d := until.Sub(l.cfg.Clock.Now())
		if d > l.statusPoll() {
			d = l.statusPoll()
		}
		l.wait(d, nil, nil)
	}
	l.rec.update(func(s *ralph.State) error {
		if s.Phase == ralph.PhaseBackoff {
			s.Phase = ralph.PhaseEnded
			s.BackoffUntil = ""
		}
		return nil
	})
	if waited && l.statusNow() == ralph.StatusRunning {
		l.transition(st, agent{dead: true}, ralph.Restarting(st.CurrentIteration+1, limits(st)))
	}
}
