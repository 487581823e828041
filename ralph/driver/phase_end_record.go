package driver

import (
	"path/filepath"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/git"
)

// The records of an iteration's and a loop's end: the iteration's line in iterations.jsonl and
// the loop's summary, and what the driver knows of the worker for them (the checkers and the
// hooks that go with them are features: feature_checks.go, feature_hooks.go).

// newRecord starts an iteration's record as it ends.
func (en *endOfIteration) newRecord(st *ralph.State, kind ralph.Ending) ralph.IterationRecord {
	now := en.cfg.Clock.Now()
	r := ralph.IterationRecord{RunID: st.RunID, Iteration: st.CurrentIteration, Agent: en.agentName(st),
		StartedAt: st.LastIterationStarted, EndedAt: now.Format(time.RFC3339Nano), EndReason: kind.Reason()}
	if started := ralph.ParseTime(st.LastIterationStarted); !started.IsZero() {
		r.StartedAt = started.Format(time.RFC3339Nano)
		r.DurationMs = now.Sub(started).Milliseconds()
	}
	return r
}

// finishIteration records a finished iteration, then tells the features (the post-iteration
// hooks see the loop's status as the iteration left it).
func (en *endOfIteration) finishIteration(rec *ralph.IterationRecord) {
	r := *rec
	r.Waited = en.takeWaits()
	en.rec.appendOrKeep(func() error { return en.cfg.Dir.AppendIteration(r) })
	en.features.iterationRecorded(r)
}

// agentName is the agent's program, as hooks and iterations.jsonl name it.
func (en *endOfIteration) agentName(st *ralph.State) string {
	if st.Agent != "" {
		return st.Agent
	}
	if w, err := en.cfg.worker(); err == nil && len(w.Cmd) > 0 {
		return filepath.Base(w.Cmd[0])
	}
	return ""
}

// workDir is the worker's directory.
func (en *endOfIteration) workDir(st *ralph.State) string {
	if w, err := en.cfg.worker(); err == nil && w.Cwd != "" {
		return w.Cwd
	}
	return st.WorkDir
}

// commitsOf lists the commits the iteration made, oldest first.
func (en *endOfIteration) commitsOf(st *ralph.State) []string {
	if st.IterationStartCommit == "" {
		return nil
	}
	commits, _ := git.CommitsSince(en.workDir(st), st.IterationStartCommit)
	for i, j := 0, len(commits)-1; i < j; i, j = i+1, j-1 {
		commits[i], commits[j] = commits[j], commits[i]
	}
	return commits
}

// removeDoneFile takes away a DONE file whose claim did not hold, for the reason why.
func (en *endOfIteration) removeDoneFile(why string) {
	for _, path := range en.cfg.Dir.RemoveDone() {
		en.rec.say("removed %s: %s", path, why)
	}
}

// checksFailed is why a DONE file the checkers disproved goes.
const checksFailed = "the checks did not pass"

// stoppedWhileWorking records the iteration of a loop stopped from outside (ralph stop, kill)
// while its agent worked.
func (en *endOfIteration) stoppedWhileWorking(st *ralph.State, a agent) {
	rec := en.newRecord(st, ralph.EndExited)
	rec.EndReason = "stopped"
	rec.Commits = en.commitsOf(st)
	rec.Waited = en.takeWaits()
	en.rec.appendOrKeep(func() error { return en.cfg.Dir.AppendIteration(rec) })
	stop := ralph.Decision{}
	if cur, err := en.cfg.Dir.Load(); err == nil {
		stop.ExitReason = cur.ExitReason
	}
	en.rec.tell(ralph.IterationEnded(rec, stop))
}

// takeWaits is what the loop waited since the last iteration's record, for the record of the
// iteration ending now.
func (en *endOfIteration) takeWaits() *ralph.Waits {
	var w *ralph.Waits
	now := en.cfg.Clock.Now()
	en.rec.update(func(s *ralph.State) error {
		if s.Waited != nil || s.PersonSince != "" {
			w = s.TakeWaits(now)
		}
		return nil
	})
	return w
}
