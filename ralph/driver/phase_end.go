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

// endOfIteration carries out every ending of an iteration, whatever saw it (the delivery, the
// watch, a feature), so the same rules judge them all. It keeps what only it needs (whether the
// saved screens were pruned) and reaches the loop through endNeeds: the loop's status, its
// stop files and the transition that carries a decision out.
type endOfIteration struct {
	cfg      *Config
	pats     *patterns // the done pattern, looked for in what the agent left on screen
	rec      *recorder
	view     *agentView
	features features // the features' steps and records at the end
	drv      endNeeds
	// screensPruned: the saved screens were looked through once; from then on each save
	// removes the one that fell out by name.
	screensPruned bool
}

// endNeeds are what the end of an iteration asks of the loop.
type endNeeds interface {
	statusNow() ralph.Status
	markers() ralph.Markers
	transition(st *ralph.State, a agent, dec ralph.Decision) *ralph.State
}

// end evaluates an iteration that has ended (or is ended here) and carries out what follows:
// stop, back off, or start the next one. The order of what happens is the policy's
// (NextEndStep, then AfterRun); this gathers the facts and does the steps.
func (en *endOfIteration) end(st *ralph.State, a agent, kind ralph.Ending) {
	if en.drv.statusNow() == ralph.StatusStopped {
		return
	}
	n, lim := st.CurrentIteration, limits(st)
	// The marker may be the last thing the agent printed before it exited.
	marker := kind == ralph.EndDoneMarker || kind == ralph.EndExited && en.doneSeen(st, a)
	rec := en.newRecord(st, kind)
	if marker && lim.Checks == 0 {
		rec.EndReason = ralph.EndDoneMarker.Reason()
	}
	defer en.finishIteration(&rec)
	en.features.iterationEnding(st)
	en.drv.transition(st, a, ralph.Announce(n, kind, lim, en.drv.statusNow() == ralph.StatusRunning))
	if kind == ralph.EndHung {
		en.rec.updateSupervision(func(rs *ralph.SupervisionState) { rs.Hangs++ })
	}
	en.saveScreen(a, n)
	// End the agent (when it still runs) and any orphans it left, in its process group or not.
	en.view.end(agent{pid: a.pid}, en.cfg.KillGrace)
	if kind != ralph.EndExited && !a.gone {
		a = en.view.endedNow(a)
	}
	if kind == ralph.EndExited {
		rec.ExitCode = a.code
	}
	rec.Commits = en.commitsOf(st)
	ended := iterationEnd{st: st, kind: kind, rec: &rec}
	en.features.iterationEnded(&ended)
	e := ralph.EndFacts{Signals: ralph.SignalsOf(kind, a.code, marker, en.drv.markers().DoneFile), Gate: ralph.GateOn(st, lim.Supervision),
		Commits: len(rec.Commits) > 0, Checks: lim.Checks}
	verdict, stop := en.endSteps(st, &e, rec.ExitCode)
	if stop {
		// A step stopped the loop (a test command that cannot run, a revert that failed): the
		// iteration ended as it did, and no verdict was given on it.
		en.rec.tell(ralph.IterationEnded(rec, ralph.Decision{}))
		return
	}
	rec.Checks, rec.RolledBack = verdict.Results, e.Reverted
	f := en.runFacts(st, a, kind, marker)
	f.Spent, f.Verdict, f.Reverted, f.Limit, f.Untested = ended.spent, verdict, e.Reverted, ended.limit, e.Untested
	dec := ralph.AfterRun(f, lim)
	recordVerdict(&rec, f, dec, n >= lim.MaxIterations)
	// Told with the verdict, so that it comes before what the verdict does to the loop.
	dec.Tell = append(dec.Tell, ralph.IterationEnded(rec, dec))
	if dec.RemoveDoneFile && f.Reverted {
		en.removeDoneFile("its iteration's commits were reverted")
	} else if dec.RemoveDoneFile {
		en.removeDoneFile(checksFailed)
	}
	en.noteInSupervision(dec, en.drv.transition(st, a, dec))
}

// endSteps has the features do what the policy asks before its verdict (the test gate, then
// the checkers). stop is true when a step stopped the loop.
func (en *endOfIteration) endSteps(st *ralph.State, e *ralph.EndFacts, code *int) (v ralph.Verdict, stop bool) {
	r := endStepRun{st: st, facts: e, code: code}
	for {
		step := ralph.NextEndStep(*e)
		if step == ralph.EndDecide || !en.features.endStep(step, &r) {
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
func (en *endOfIteration) noteInSupervision(dec ralph.Decision, cur *ralph.State) {
	head := en.workerHead()
	en.rec.updateSupervision(func(rs *ralph.SupervisionState) {
		if dec.SetCounters {
			rs.ConsecutiveErrors = cur.ConsecutiveFailures
		}
		if head != "" {
			rs.LastCommit = head
		}
	})
}

// runFacts gathers what the policy needs to know about an iteration that ended.
func (en *endOfIteration) runFacts(st *ralph.State, a agent, kind ralph.Ending, marker bool) ralph.RunFacts {
	f := ralph.RunFacts{
		Counters: ralph.Counters{Iteration: st.CurrentIteration, ConsecutiveFailures: st.ConsecutiveFailures, TotalFailures: st.TotalFailures},
		Ending:   kind, ExitCode: a.code, Duration: en.sinceStart(st), Markers: en.drv.markers(),
	}
	// One fresh read: the counters and status as they are now, not as the iteration began.
	if cur, err := en.cfg.Dir.Load(); err == nil {
		f.ConsecutiveFailures, f.TotalFailures = cur.ConsecutiveFailures, cur.TotalFailures
		f.Running = cur.Status == ralph.StatusRunning
		f.Stagnation = en.stagnationFacts(cur)
	}
	if a.code != nil && (*a.code == 126 || *a.code == 127) {
		f.FatalReason = fatalReason(en.cfg.Workers.ExitPath(en.cfg.Name), *a.code)
	}
	f.Signals = ralph.SignalsOf(kind, a.code, marker, f.Markers.DoneFile)
	f.LastLines = screenTail(leftScreen(en.cfg, en.view, a, st.CurrentIteration), ralph.FailureLines)
	return f
}

// stagnationFacts looks at the worker's checkout for the stagnation breaker (only when it is on).
func (en *endOfIteration) stagnationFacts(cur *ralph.State) ralph.StagnationFacts {
	f := ralph.StagnationFacts{Limit: cur.StagnationLimit, Before: cur.GitFingerprint, Count: cur.StagnantIterations}
	if f.Limit <= 0 {
		return f
	}
	if w, err := en.cfg.worker(); err == nil {
		f.After, f.InRepo = git.Fingerprint(w.Cwd)
	}
	return f
}

// workerHead is the short commit the worker's directory is at, "" outside a repository.
func (en *endOfIteration) workerHead() string {
	w, err := en.cfg.worker()
	if err != nil {
		return ""
	}
	return ralph.ShortCommit(git.Head(w.Cwd))
}

func (en *endOfIteration) sinceStart(st *ralph.State) (d time.Duration) {
	if started := ralph.ParseTime(st.LastIterationStarted); !started.IsZero() {
		d = en.cfg.Clock.Now().Sub(started)
	}
	return d
}

// doneSeen looks for the done pattern in what the agent left on screen.
func (en *endOfIteration) doneSeen(st *ralph.State, a agent) bool {
	if en.pats.doneRE == nil || a.gone {
		return false
	}
	en.pats.ensureMatcher(en.cfg.Dir.PromptCopy())
	lines, err := en.view.capture(a, en.cfg.HistoryLines)
	return err == nil && en.pats.matcher.Count(lines) > st.DoneBaseline
}

func (en *endOfIteration) saveScreen(a agent, n int) {
	if a.gone {
		return
	}
	out, err := en.cfg.Tmux.Capture(a.paneID, en.cfg.HistoryLines)
	if err != nil {
		return
	}
	dir := filepath.Dir(en.cfg.Dir.ScreenPath(n))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	// A screen is kept to look back at: worth no wait for the disk at each iteration's end,
	// nor the last room of a nearly full one (the loop's records need it).
	if state.RoomFor(dir, int64(len(out))) {
		_ = state.ReplaceFile(en.cfg.Dir.ScreenPath(n), []byte(out), 0o600)
	}
	pruneScreens(en.cfg.Dir, n, !en.screensPruned)
	en.screensPruned = true
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

// recordVerdict notes in the iteration's record what the verdict on it said: the signals it
// went by (and the last iteration's max_iterations, unless it was done), a failure's lines.
func recordVerdict(rec *ralph.IterationRecord, f ralph.RunFacts, dec ralph.Decision, last bool) {
	rec.Signals = f.Signals
	if dec.Failed != nil {
		rec.LastLines = dec.Failed.Lines
	}
	if dec.Signals != nil {
		rec.Signals = dec.Signals
	}
	if last && !doneReason(dec.ExitReason) && !slices.Contains(rec.Signals, ralph.SignalMaxIterations) {
		rec.Signals = append(rec.Signals, ralph.SignalMaxIterations)
	}
}
